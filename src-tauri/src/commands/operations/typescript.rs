//! The UI's functions for the shell's own commands (ui/src/ipc/shell.ts), from their one
//! declaration; fails when the committed file is out of date.

use factdesk_api::call::{typescript, Shell, Signature};
use std::path::Path;
use ts_rs::{Config, TS};

macro_rules! shell_signatures {
    ($cfg:ident $(
        $(#[doc = $doc:literal])*
        $module:ident :: $name:ident ( $($arg:ident : $ty:ty),* ) -> $res:ty;
    )*) => {
        vec![$(
            Signature {
                name: stringify!($name),
                doc: concat!($($doc, "\n"),*),
                shell: Shell::Own,
                args: vec![$((stringify!($arg), <$ty as TS>::name(&$cfg))),*],
                response: <$res as TS>::name(&$cfg),
            },
        )*]
    };
}

#[test]
fn ui_shell_commands_match_their_declaration() {
    let cfg = Config::default().with_large_int("number");
    let signatures: Vec<Signature> = crate::for_each_shell_command!(shell_signatures cfg);
    let fresh = typescript(
        "shellCommands",
        "The desktop shell's own commands: files on this computer, a server's connection, background jobs.",
        "cargo test -p factdesk-app shell_commands",
        &signatures,
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/ipc/shell.ts");
    if std::env::var_os("FACTDESK_UPDATE_BINDINGS").is_some() {
        std::fs::write(&path, &fresh)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "{} is out of date with the shell's commands; run \
         FACTDESK_UPDATE_BINDINGS=1 cargo test -p factdesk-app shell_commands",
        path.display()
    );
}
