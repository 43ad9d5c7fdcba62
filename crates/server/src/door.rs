//! Caps on the connections held open at once, in all and per address: each costs a file
//! descriptor, and the process has a limit on those. A connection past a cap is closed
//! as it is accepted (and logged), so the server never runs out of descriptors and
//! keeps accepting others. Near the cap in all, the last places are kept for addresses
//! holding few connections (a lead opening the dashboard), not for the ones holding many.
//!
//! At start the server raises its soft open-file limit to the hard one (systemd's units
//! default to 1024 soft) and sizes the cap in all below it, or refuses to start when the
//! limit leaves too few for its connections.

use axum_server::accept::Accept;
use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// An address holding fewer connections than this may take the last places in all.
pub const LIGHT_ADDRESS: usize = 8;
/// The fewest connections in all the server starts with.
pub const MIN_CONNECTIONS: usize = 64;

/// How many connections the door admits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// In all, from every address together.
    pub total: usize,
    /// From one address (the trusted proxy excepted).
    pub per_address: usize,
}

impl Caps {
    /// The places kept, near the cap in all, for addresses holding fewer than
    /// [`LIGHT_ADDRESS`] connections.
    fn reserve(&self) -> usize {
        (self.total / 8).max(1)
    }
}

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

/// Why a connection was not admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    Full,
    Address,
    Reserved,
}

/// Open connections, in all and by address.
#[derive(Debug, Default)]
struct Open {
    total: usize,
    by_address: HashMap<IpAddr, usize>,
}

/// Open connections shared by the acceptor's clones.
#[derive(Debug, Default)]
struct Doorkeeper(Mutex<Open>);

impl Doorkeeper {
    /// Counts one more connection from `ip` unless a cap refuses it; `proxy` is the
    /// trusted reverse proxy, whose connections are everyone's and count only in all.
    fn take(self: &Arc<Self>, ip: IpAddr, caps: Caps, proxy: bool) -> Result<Held, Refusal> {
        // A poisoned count still counts: a panic elsewhere must not open the door.
        let mut open = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let held = open.by_address.get(&ip).copied().unwrap_or(0);
        if open.total >= caps.total {
            return Err(Refusal::Full);
        }
        if !proxy && held >= caps.per_address {
            return Err(Refusal::Address);
        }
        if !proxy && held >= LIGHT_ADDRESS && open.total >= caps.total - caps.reserve() {
            return Err(Refusal::Reserved);
        }
        open.total += 1;
        *open.by_address.entry(ip).or_default() += 1;
        Ok(Held {
            open: self.clone(),
            ip,
        })
    }
}

/// One counted connection; dropping it frees its place.
#[derive(Debug)]
struct Held {
    open: Arc<Doorkeeper>,
    ip: IpAddr,
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut open = self.open.0.lock().unwrap_or_else(|p| p.into_inner());
        open.total = open.total.saturating_sub(1);
        if let Some(count) = open.by_address.get_mut(&self.ip) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.by_address.remove(&self.ip);
            }
        }
    }
}

/// An acceptor admitting connections within [`Caps`] before `inner` (plain or TLS)
/// takes them.
#[derive(Debug, Clone)]
pub struct Capped<A> {
    inner: A,
    caps: Caps,
    open: Arc<Doorkeeper>,
    /// The trusted reverse proxy: every person's connections come from its address, so
    /// capping it per address would let one person's connections shut the team out.
    proxy: Option<IpAddr>,
}

impl<A> Capped<A> {
    pub fn new(inner: A, caps: Caps, proxy: Option<IpAddr>) -> Self {
        Capped {
            inner,
            caps: Caps {
                total: caps.total.max(1),
                per_address: caps.per_address.max(1),
            },
            open: Arc::default(),
            proxy,
        }
    }
}

impl<A, S> Accept<TcpStream, S> for Capped<A>
where
    A: Accept<Counted, S> + Clone + Send + 'static,
    A::Future: Send + 'static,
    S: Send + 'static,
{
    type Stream = A::Stream;
    type Service = A::Service;
    type Future = Pin<Box<dyn Future<Output = io::Result<(A::Stream, A::Service)>> + Send>>;

    fn accept(&self, stream: TcpStream, service: S) -> Self::Future {
        let peer = stream.peer_addr().map(|a| a.ip());
        let held = match &peer {
            Ok(ip) => self.open.take(*ip, self.caps, Some(*ip) == self.proxy),
            Err(_) => Err(Refusal::Full),
        };
        let inner = self.inner.clone();
        let held = match held {
            Ok(held) => held,
            Err(refusal) => {
                // Closed here and now: a refused stream kept inside the returned future
                // stays open for as long as the server keeps that future.
                drop(stream);
                let from = match &peer {
                    Ok(ip) => ip.to_string(),
                    Err(e) => format!("an unknown address ({e})"),
                };
                let Caps { total, per_address } = self.caps;
                let why = match refusal {
                    Refusal::Full => format!("the server holds {total} connections, its cap"),
                    Refusal::Address => format!("it already holds {per_address} open"),
                    Refusal::Reserved => format!(
                        "the last places of the {total} are kept for addresses holding fewer than {LIGHT_ADDRESS}"
                    ),
                };
                let refused = io::Error::other(format!("refused a connection from {from}: {why}"));
                return Box::pin(async move { Err(refused) });
            }
        };
        Box::pin(async move {
            inner
                .accept(
                    Counted {
                        inner: stream,
                        _held: held,
                    },
                    service,
                )
                .await
        })
    }
}

/// A connection counted against the caps while it is open.
#[derive(Debug)]
pub struct Counted {
    inner: TcpStream,
    _held: Held,
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
