//! The open-file limit the connection caps must stay under: at start the server raises
//! its soft limit to the hard one (systemd's units default to 1024 soft) and sizes the
//! cap in all below it, or refuses to start when the limit leaves too few for its
//! connections.

use crate::door::{Caps, MIN_CONNECTIONS};

/// The open-file limits of the process; `None` is no limit, or not known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenFiles {
    pub soft: Option<u64>,
    pub hard: Option<u64>,
}

/// Raises the soft open-file limit to the hard one, and says what is in force after.
#[cfg(unix)]
pub fn raise_open_file_limit() -> OpenFiles {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let before = getrlimit(Resource::Nofile);
    if before.current != before.maximum {
        let raised = Rlimit {
            current: before.maximum,
            maximum: before.maximum,
        };
        if setrlimit(Resource::Nofile, raised).is_err() {
            // macOS refuses more than OPEN_MAX (10240) whatever the hard limit says.
            let open_max = Some(before.maximum.map_or(10_240, |hard| hard.min(10_240)));
            if open_max > before.current {
                let _ = setrlimit(
                    Resource::Nofile,
                    Rlimit {
                        current: open_max,
                        maximum: before.maximum,
                    },
                );
            }
        }
    }
    let after = getrlimit(Resource::Nofile);
    OpenFiles {
        soft: after.current,
        hard: after.maximum,
    }
}

/// No limit to raise or read here.
#[cfg(not(unix))]
pub fn raise_open_file_limit() -> OpenFiles {
    OpenFiles {
        soft: None,
        hard: None,
    }
}

/// Descriptors kept for what is not a connection: the listener and runtime, logs, the
/// project and its search index, and each of the `pool` connections to the project (a
/// file with its -wal and -shm, or a socket), with room for an import's files.
pub fn descriptors_beside_connections(pool: usize) -> u64 {
    256 + 8 * pool as u64
}

/// The open-file limit is too low for the server's connections.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the server may open only {soft} files at once (hard limit {hard}) and needs at least {needed}: {connections} connections and its project. Raise the limit (systemd: LimitNOFILE=65536 under [Service]; a shell: ulimit -n 65536) or lower --connections"
)]
pub struct TooFewFiles {
    pub soft: u64,
    pub hard: String,
    pub needed: u64,
    pub connections: usize,
}

/// The caps `files` allow: `wanted`, lowered so that connections in all stay below the
/// soft limit less what the project of `pool` connections needs, and one address holds
/// at most half of them.
pub fn caps_within(files: OpenFiles, pool: usize, wanted: Caps) -> Result<Caps, TooFewFiles> {
    let beside = descriptors_beside_connections(pool);
    let total = match files.soft {
        None => wanted.total,
        Some(soft) => {
            let room = usize::try_from(soft.saturating_sub(beside)).unwrap_or(usize::MAX);
            if room < MIN_CONNECTIONS {
                return Err(TooFewFiles {
                    soft,
                    hard: files
                        .hard
                        .map_or_else(|| "unlimited".to_string(), |h| h.to_string()),
                    needed: beside + MIN_CONNECTIONS as u64,
                    connections: MIN_CONNECTIONS,
                });
            }
            wanted.total.min(room)
        }
    };
    Ok(Caps {
        total,
        per_address: wanted.per_address.min(total / 2).max(1),
    })
}
