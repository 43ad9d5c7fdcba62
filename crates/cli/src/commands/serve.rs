use factdesk_api::sign_in::SignInPolicy;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

/// The longest a sign-in may last: 366 days.
const MAX_SESSION_HOURS: f64 = 8784.0;

/// Serve a project to a team over HTTP (docs/server.md).
///
/// People sign in with the passwords set by `factdesk annotators P add NAME
/// --password-stdin`. With --tls-cert and --tls-key the server speaks HTTPS; without
/// them plain HTTP, which it only offers on a loopback address (put a reverse proxy that
/// does TLS in front) unless --plain-http-on-network is given.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file, or a postgres:// URL.
    project: PathBuf,
    /// The address and port to listen on, e.g. 127.0.0.1:4470; port 0 takes one the
    /// system chooses (the line "serving … on http://ADDRESS:PORT" says which).
    #[arg(long)]
    listen: SocketAddr,
    /// The certificate chain, PEM.
    #[arg(long, requires = "tls_key", value_name = "PEM")]
    tls_cert: Option<PathBuf>,
    /// The certificate's private key, PEM.
    #[arg(long, requires = "tls_cert", value_name = "PEM")]
    tls_key: Option<PathBuf>,
    /// Serve plain HTTP on an address other machines reach (passwords and tokens then
    /// cross the network unencrypted).
    #[arg(long)]
    plain_http_on_network: bool,
    /// How long a sign-in lasts, in hours.
    #[arg(long, default_value_t = 12.0)]
    session_hours: f64,
    /// Connections to the project held open for requests running side by side.
    #[arg(long, default_value_t = 8)]
    connections: usize,
    /// The largest request body taken, in bytes.
    #[arg(long, default_value_t = factdesk_server::DEFAULT_BODY_LIMIT)]
    body_limit: usize,
    /// The largest import request taken (files picked in the app, in base64), in bytes.
    #[arg(long, default_value_t = factdesk_server::DEFAULT_IMPORT_LIMIT)]
    import_limit: usize,
    /// The address of a reverse proxy in front of the server: for its requests, the
    /// caller's address is the last one it added to X-Forwarded-For (sign-in limits count
    /// per caller, not per proxy).
    #[arg(long, value_name = "IP")]
    trusted_proxy: Option<IpAddr>,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let tls = match (a.tls_cert, a.tls_key) {
        (Some(cert), Some(key)) => Some(factdesk_server::Tls { cert, key }),
        _ => None,
    };
    if tls.is_none() && !a.listen.ip().is_loopback() && !a.plain_http_on_network {
        anyhow::bail!(
            "{} is reachable from other machines and no --tls-cert/--tls-key were given: passwords would cross the network unencrypted. Listen on 127.0.0.1 behind a reverse proxy that does TLS, give a certificate, or pass --plain-http-on-network",
            a.listen
        );
    }
    // A year at most: a token that never expires is a password that cannot be changed.
    if !(a.session_hours > 0.0 && a.session_hours <= MAX_SESSION_HOURS) {
        anyhow::bail!(
            "--session-hours must be a positive number of hours, at most {MAX_SESSION_HOURS}"
        );
    }
    let policy = SignInPolicy {
        session_ms: (a.session_hours * 3_600_000.0) as i64,
        ..SignInPolicy::default()
    };
    let config = factdesk_server::ServeConfig {
        project: a.project,
        listen: a.listen,
        tls,
        connections: a.connections.max(1),
        policy,
        body_limit: a.body_limit,
        import_limit: a.import_limit,
        trusted_proxy: a.trusted_proxy,
    };
    let scheme = if config.tls.is_some() {
        "https"
    } else {
        "http"
    };
    // A database URL is shown without its password. Said once the port is bound, with
    // the port the system chose when --listen has port 0: scripts and tests read the
    // address back from this line.
    let shown = factdesk_api::ProjectLocation::parse(&config.project).shown();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(factdesk_server::serve(config, |addr| {
        eprintln!("serving {shown} on {scheme}://{addr}");
    }))?;
    Ok(())
}
