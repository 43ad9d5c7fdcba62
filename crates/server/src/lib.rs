//! The Factdesk team server: an HTTP JSON API over the api's use cases, so a team works
//! live on one project (a project file for a small team on one machine, PostgreSQL for
//! more) instead of carrying packs.
//!
//! What it adds is transport only: people sign in (`POST /api/v1/login`) for a bearer
//! token, every request turns its token into the api's [`factdesk_api::Actor`], and the
//! use case checks the role itself; the server checks none and shapes no JSON of its own
//! beyond errors: each route answers with the same types the CLI's `--json` prints.
//!
//! The api's [`Project`] is one connection; the server holds a small [`pool::Pool`] of
//! them and runs each call on tokio's blocking threads, so requests run side by side
//! (SQLite in WAL mode lets readers run beside the one writer; PostgreSQL lets writers
//! run side by side). TLS is rustls with a given certificate and key; without them the
//! server speaks plain HTTP, meant for loopback behind a reverse proxy that does TLS
//! (docs/server.md).
//!
//! The routes and their statuses are in [`openapi::document`], served at
//! `/api/v1/openapi.json`.

mod answering;
pub mod browser;
mod caller;
mod commits;
pub mod door;
pub mod error;
pub mod gate;
pub mod jobs;
pub mod open_files;
pub mod openapi;
pub mod pool;
pub mod routes;
mod searching;
pub mod ui;

pub use error::ApiError;
pub use pool::Pool;
pub use routes::router;
pub use searching::{SearchHold, SEARCHES_PER_PERSON};

use factdesk_api::sign_in::SignInPolicy;
use factdesk_api::{Clock, Project};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The largest request body taken by default: an answer is a few hundred bytes, a
/// written refutation a few kilobytes.
pub const DEFAULT_BODY_LIMIT: usize = 64 * 1024;
/// The largest import request taken unless told otherwise: 256 MiB of JSON, about 190 MiB
/// of files once out of base64.
pub const DEFAULT_IMPORT_LIMIT: usize = 256 * 1024 * 1024;

/// Password checks run at once by default, and how long a sign-in waits for a turn.
pub const DEFAULT_HASHING: usize = 2;
pub const DEFAULT_HASHING_WAIT: Duration = Duration::from_secs(2);

/// How long a connection may take to send a request's headers or body: a slow or idle
/// client holds a connection (a file descriptor) no longer.
pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// The most a connection's request may hold in the server's memory while it arrives: a
/// request's headers must fit (431 past it), and a body is read through it in pieces.
/// Hyper's default (about 400 KB) let thousands of anonymous connections, each with an
/// unfinished header, hold gigabytes until the header timeout (twelfth hostile pass:
/// a server with 2 GiB was killed for memory in 25 s).
pub const READ_BUFFER: usize = 16 * 1024;

/// How long a lead's import or merge body may take (256 MiB at 0.5 MiB/s).
pub const BULK_BODY_TIMEOUT: Duration = Duration::from_secs(600);

/// Connections one address may hold open at once by default: enough for a reverse proxy
/// carrying a team's requests and event streams, far below the process's descriptors.
pub const DEFAULT_CONNECTIONS_PER_ADDRESS: usize = 512;
/// Connections held open at once from all addresses together, at most: [`serve`] lowers
/// it below the process's open-file limit (see [`door`]).
pub const DEFAULT_CONNECTIONS_IN_ALL: usize = 8192;

/// How often `GET /api/v1/events` sends a heartbeat (the comment line `: heartbeat`)
/// when nothing else is sent, so a client notices a silently dead network: the app
/// counts the stream dead after [`HEARTBEAT`] × 2.5 of silence and follows it again.
pub const HEARTBEAT: Duration = Duration::from_secs(4);

/// Opens one more connection to the project; the pool calls it as it grows and after a
/// connection failed.
pub type Opener = Arc<dyn Fn() -> factdesk_api::Result<Project> + Send + Sync>;

/// What the server shares between requests.
#[derive(Clone)]
pub struct AppState {
    pub(crate) pool: Arc<Pool>,
    pub(crate) policy: SignInPolicy,
    /// A tick for each committed answer, for `GET /api/v1/events`: sent by the routes
    /// that commit one and, on PostgreSQL, for every commit the database announces
    /// (`commits`), whichever process made it.
    pub(crate) answers: tokio::sync::broadcast::Sender<()>,
    pub(crate) body_limit: usize,
    /// The largest body `POST /api/v1/import` takes (files, in base64).
    pub(crate) import_limit: usize,
    /// Imports running or recently ended as jobs.
    pub(crate) jobs: Arc<jobs::Jobs>,
    /// Password checks running at once: each costs tens of milliseconds of a core, so a
    /// flood of sign-ins must not take every core from the team's work.
    pub(crate) hashing: Arc<tokio::sync::Semaphore>,
    /// One more password check, kept for names signing in from an address they signed in
    /// from before: a flood of new names from many addresses took every check, and the
    /// team's own sign-ins waited 2 s behind it.
    pub(crate) hashing_known: Arc<tokio::sync::Semaphore>,
    /// One more, kept for a lead's name from any address: a lead on a new network was
    /// answered 503 while an anonymous flood held the others (sixth hostile pass).
    pub(crate) hashing_lead: Arc<tokio::sync::Semaphore>,
    /// The sign-ins being checked by name and by block: one check of a name at once from
    /// elsewhere, one place a block in the queue for `hashing`.
    pub(crate) checking: Arc<routes::Checking>,
    /// Merges waiting for, or holding, one of the pool's connections: one at a time, so a
    /// merge never holds more than one of the team's connections.
    pub(crate) merging: Arc<tokio::sync::Semaphore>,
    /// How long a sign-in waits for a turn to check its password before it gets 503.
    pub(crate) hashing_wait: Duration,
    /// How long a connection may take to send a request's headers (an idle connection
    /// is closed after as long), and a request's body.
    pub(crate) header_timeout: Duration,
    pub(crate) body_timeout: Duration,
    /// How long a lead's import or merge body may take.
    pub(crate) bulk_body_timeout: Duration,
    /// Connections one address may hold open at once.
    pub(crate) connections_per_address: usize,
    /// Connections all addresses together may hold open at once.
    pub(crate) connections_in_all: usize,
    /// A reverse proxy whose X-Forwarded-For names the caller.
    pub(crate) trusted_proxy: Option<std::net::IpAddr>,
    /// Whether the server speaks TLS itself (a browser's cookie is then Secure).
    pub(crate) tls: bool,
    /// The searches each person is running (`searching`).
    pub(crate) searching: Arc<searching::Searching>,
    /// For tests: where searches wait before searching the index.
    pub(crate) search_hold: Option<Arc<SearchHold>>,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("policy", &self.policy)
            .field("body_limit", &self.body_limit)
            .finish_non_exhaustive()
    }
}

impl AppState {
    /// A state over `open`, with at most `connections` open at once.
    pub fn new(open: Opener, connections: usize, policy: SignInPolicy, body_limit: usize) -> Self {
        AppState {
            pool: Arc::new(Pool::new(open, connections)),
            policy,
            answers: tokio::sync::broadcast::channel(64).0,
            body_limit,
            import_limit: DEFAULT_IMPORT_LIMIT,
            jobs: Arc::default(),
            hashing: Arc::new(tokio::sync::Semaphore::new(DEFAULT_HASHING)),
            hashing_known: Arc::new(tokio::sync::Semaphore::new(1)),
            hashing_lead: Arc::new(tokio::sync::Semaphore::new(1)),
            checking: Arc::default(),
            merging: Arc::new(tokio::sync::Semaphore::new(1)),
            hashing_wait: DEFAULT_HASHING_WAIT,
            header_timeout: DEFAULT_READ_TIMEOUT,
            body_timeout: DEFAULT_READ_TIMEOUT,
            bulk_body_timeout: BULK_BODY_TIMEOUT,
            connections_per_address: DEFAULT_CONNECTIONS_PER_ADDRESS,
            connections_in_all: DEFAULT_CONNECTIONS_IN_ALL,
            trusted_proxy: None,
            tls: false,
            searching: Arc::default(),
            search_hold: None,
        }
    }

    /// The same state taking the caller's address from X-Forwarded-For on requests
    /// from `proxy` (the last address there: the one the proxy added).
    pub fn with_trusted_proxy(mut self, proxy: Option<std::net::IpAddr>) -> Self {
        self.trusted_proxy = proxy;
        self
    }

    /// The same state letting one address hold at most `cap` connections open.
    pub fn with_connections_per_address(mut self, cap: usize) -> Self {
        self.connections_per_address = cap;
        self
    }

    /// The same state letting all addresses together hold at most `cap` connections open
    /// (the last eighth of them kept for addresses holding few).
    pub fn with_connections_in_all(mut self, cap: usize) -> Self {
        self.connections_in_all = cap;
        self
    }

    /// The same state closing connections that take longer than `headers` to send a
    /// request's headers, and answering 408 to a body slower than `body`.
    pub fn with_read_timeouts(mut self, headers: Duration, body: Duration) -> Self {
        self.header_timeout = headers;
        self.body_timeout = body;
        self
    }

    /// The same state checking at most `at_once` passwords at a time, a sign-in waiting
    /// at most `wait` for its turn.
    pub fn with_hashing(mut self, at_once: usize, wait: Duration) -> Self {
        self.hashing = Arc::new(tokio::sync::Semaphore::new(at_once));
        self.hashing_wait = wait;
        self
    }

    /// For tests: the same state holding every search at `hold` before it searches the
    /// index (see [`SearchHold`]).
    #[doc(hidden)]
    pub fn with_search_hold(mut self, hold: Arc<SearchHold>) -> Self {
        self.search_hold = Some(hold);
        self
    }

    /// The same state taking import bodies up to `bytes`.
    pub fn with_import_limit(mut self, bytes: usize) -> Self {
        self.import_limit = bytes;
        self
    }
}

/// Opens `project` with `clock` each time a connection is needed; the projects share
/// what asks for a next item found nothing.
pub fn opener(
    project: PathBuf,
    clock: impl Fn() -> Box<dyn Clock> + Send + Sync + 'static,
) -> Opener {
    let found_nothing = factdesk_api::FoundNothing::default();
    Arc::new(move || {
        Project::open(&project, clock()).map(|p| p.sharing_found_nothing(&found_nothing))
    })
}

/// TLS material: PEM files of the certificate chain and its private key.
#[derive(Debug, Clone)]
pub struct Tls {
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// How `factdesk serve` runs the server.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub project: PathBuf,
    pub listen: SocketAddr,
    pub tls: Option<Tls>,
    pub connections: usize,
    pub policy: SignInPolicy,
    pub body_limit: usize,
    pub import_limit: usize,
    /// A reverse proxy whose X-Forwarded-For is believed.
    pub trusted_proxy: Option<std::net::IpAddr>,
}

/// Why the server could not start or stopped. A message names its cause only where the
/// cause is not also its source: the command line prints the chain, which said each
/// cause twice (hostile pass of session 34).
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot open the project")]
    Project(#[from] factdesk_api::Error),
    #[error("cannot listen on {addr}")]
    Listen {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot read the TLS certificate or key: {0}")]
    Tls(std::io::Error),
    #[error(transparent)]
    OpenFiles(#[from] open_files::TooFewFiles),
    #[error("the server failed")]
    Io(#[from] std::io::Error),
}

/// Serves `config` until SIGINT or SIGTERM, then lets requests in flight finish (a few
/// seconds at most). The open-file limit is raised first and the connection caps sized
/// below it (or the server refuses to start, saying how to raise it); the project is
/// opened once, so a wrong path fails at once;
/// `listening` is told the address once the port is bound (the port the system chose
/// when `config.listen` has port 0), before the first request is taken.
pub async fn serve(
    config: ServeConfig,
    listening: impl FnOnce(SocketAddr),
) -> Result<(), ServeError> {
    let open = opener(config.project.clone(), || {
        Box::new(factdesk_api::SystemClock)
    });
    // Off the runtime's threads: PostgreSQL's blocking client runs a runtime of its own.
    let first = open.clone();
    tokio::task::spawn_blocking(move || first().map(drop))
        .await
        .map_err(|e| ServeError::Io(std::io::Error::other(e)))??;
    let files = open_files::raise_open_file_limit();
    let caps = open_files::caps_within(
        files,
        config.connections,
        door::Caps {
            total: DEFAULT_CONNECTIONS_IN_ALL,
            per_address: DEFAULT_CONNECTIONS_PER_ADDRESS,
        },
    )?;
    tracing::info!(
        open_files = ?files.soft,
        connections = caps.total,
        per_address = caps.per_address,
        "connection caps"
    );
    let state = AppState::new(open, config.connections, config.policy, config.body_limit)
        .with_import_limit(config.import_limit)
        .with_trusted_proxy(config.trusted_proxy)
        .with_connections_in_all(caps.total)
        .with_connections_per_address(caps.per_address);
    let listener =
        std::net::TcpListener::bind(config.listen).map_err(|source| ServeError::Listen {
            addr: config.listen,
            source,
        })?;
    listening(listener.local_addr()?);
    serve_on(listener, state, config.tls, shutdown_signal()).await
}

/// Serves `state` on a bound listener until `shutdown` completes; what [`serve`] and the
/// tests run. On PostgreSQL the event stream also ticks for answers other processes
/// commit, heard on a connection of its own opened before the first request is taken.
pub async fn serve_on(
    listener: std::net::TcpListener,
    mut state: AppState,
    tls: Option<Tls>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    state.tls = tls.is_some();
    let header_timeout = state.header_timeout;
    let caps = door::Caps {
        total: state.connections_in_all,
        per_address: state.connections_per_address,
    };
    let proxy = state.trusted_proxy;
    let door = door::door();
    let pool = state.pool.clone();
    // Dropped when this function returns, which stops the task.
    let (_stop_letting_go, stop) = tokio::sync::oneshot::channel();
    tokio::spawn(answering::let_go_of_ended_sessions(
        door.clone(),
        pool.clone(),
        stop,
    ));
    // Dropped when this function returns, which stops the listener.
    let (_stop_listening, listening) = std::sync::mpsc::channel();
    commits::tick_on_commits(pool.clone(), state.answers.clone(), listening).await;
    let cookies = state.clone();
    let app = router(state)
        .layer(axum::middleware::from_fn_with_state(
            (door.clone(), pool),
            answering::layer,
        ))
        .layer(axum::middleware::from_fn_with_state(
            cookies,
            browser::secure_cookie_only,
        ))
        .into_make_service_with_connect_info::<SocketAddr>();
    let handle = axum_server::Handle::new();
    let stopper = handle.clone();
    tokio::spawn(async move {
        shutdown.await;
        stopper.graceful_shutdown(Some(Duration::from_secs(5)));
    });
    match tls {
        None => {
            let mut server = axum_server::from_tcp(listener)?
                .http1_only()
                .acceptor(door::Capped::new(
                    axum_server::accept::DefaultAcceptor,
                    caps,
                    proxy,
                    door,
                ))
                .accept_error_handler(log_accept_error);
            server
                .http_builder()
                .http1()
                .header_read_timeout(header_timeout)
                .max_buf_size(READ_BUFFER);
            server.handle(handle).serve(app).await?
        }
        Some(tls) => {
            // One process-wide provider; installing it again (tests) is harmless.
            let _ = rustls::crypto::ring::default_provider().install_default();
            let pem = axum_server::tls_rustls::RustlsConfig::from_pem_file(&tls.cert, &tls.key)
                .await
                .map_err(ServeError::Tls)?;
            // HTTP/1.1 only, as the server speaks: offered HTTP/2, every browser took it
            // and had its connection closed (fourteenth hostile pass).
            let mut only_http1 = (*pem.get_inner()).clone();
            only_http1.alpn_protocols = vec![b"http/1.1".to_vec()];
            let config = axum_server::tls_rustls::RustlsConfig::from_config(Arc::new(only_http1));
            let acceptor = axum_server::tls_rustls::RustlsAcceptor::new(config).acceptor(
                door::Capped::new(axum_server::accept::DefaultAcceptor, caps, proxy, door),
            );
            let mut server = axum_server::from_tcp(listener)?
                .http1_only()
                .acceptor(acceptor)
                .accept_error_handler(log_accept_error);
            server
                .http_builder()
                .http1()
                .header_read_timeout(header_timeout)
                .max_buf_size(READ_BUFFER);
            server.handle(handle).serve(app).await?
        }
    }
    Ok(())
}

/// A connection that could not be accepted (descriptors exhausted, a failed TLS
/// handshake, an address past its cap): the server goes on; the operator should know.
fn log_accept_error(peer: Option<&SocketAddr>, e: &std::io::Error) {
    // The door's own refusals, which it logs counted, once a second.
    if e.kind() == std::io::ErrorKind::ConnectionRefused {
        return;
    }
    tracing::warn!(?peer, "a connection was not accepted: {e}");
}

async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(_) => {
                    let _ = interrupt.await;
                    return;
                }
            };
        tokio::select! {
            _ = interrupt => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}
