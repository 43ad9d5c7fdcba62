//! What the api builds from the operations' list ([`crate::for_each_operation!`]): the
//! [`super::Call`] a client sends, the [`super::Host`] every place that runs operations
//! implements, the typed [`super::Reply`], the dispatch between them, and each
//! operation's [`super::Signature`] for the UI's bindings.

/// Builds the api's side of the operations from their list.
macro_rules! declare_calls {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident $name:ident $({
            $( $(#[$field:meta])* $arg:ident : $ty:ty ),* $(,)?
        })? -> $res:ty, $who:ident, $shell:ident;
    )*) => {
        /// One operation, as `{"op": "next_item", "args": {"kind": "evidence"}}` (`args`
        /// left out when there are none).
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(
            tag = "op",
            content = "args",
            rename_all = "snake_case",
            deny_unknown_fields
        )]
        pub enum Call {
            $(
                $(#[doc = $doc])*
                $variant $({ $( $(#[$field])* $arg: $ty ),* })?,
            )*
        }

        /// Every operation's name, as in `op`.
        pub const OPS: &[&str] = &[$(stringify!($name)),*];

        /// Who may call the operation named `name`, as declared.
        pub fn who_may(name: &str) -> Option<Who> {
            match name {
                $(stringify!($name) => Some(Who::$who),)*
                _ => None,
            }
        }

        impl Call {
            /// The operation's name, as in `op`.
            pub fn name(&self) -> &'static str {
                match self {
                    $(Call::$variant { .. } => stringify!($name),)*
                }
            }

            /// Who may call it.
            pub fn who(&self) -> Who {
                match self {
                    $(Call::$variant { .. } => Who::$who,)*
                }
            }
        }

        /// A place that runs every operation: a project for a person, a pack, a team
        /// server. One method per operation, so a place that misses one does not compile.
        pub trait Host {
            $(
                $(#[doc = $doc])*
                fn $name(&mut self $($(, $arg: $ty)*)?) -> Result<$res>;
            )*
        }

        /// What an operation answers, typed; written as the response alone.
        #[derive(Debug, Serialize)]
        #[serde(untagged)]
        pub enum Reply {
            $($variant($res),)*
        }

        /// Runs `call` on `host`.
        pub fn dispatch(host: &mut impl Host, call: Call) -> Result<Reply> {
            match call {
                $(
                    Call::$variant $({ $($arg),* })? =>
                        host.$name($($($arg),*)?).map(Reply::$variant),
                )*
            }
        }

        /// Every operation's signature, its types named as the UI's bindings name them.
        pub fn signatures(cfg: &ts_rs::Config) -> Vec<Signature> {
            vec![$(
                Signature {
                    name: stringify!($name),
                    doc: concat!($($doc, "\n"),*),
                    shell: Shell::$shell,
                    args: vec![$($(
                        (stringify!($arg), <$ty as ts_rs::TS>::name(cfg)),
                    )*)?],
                    response: <$res as ts_rs::TS>::name(cfg),
                },
            )*]
        }
    };
}
