//! A team server as the app's workplace: sign in with a name and password for a bearer
//! token, then send each of the app's operations ([`Call`]) to `POST /api/v1/call`, where
//! the server runs the same api function for the token's person. Failures come back as
//! the api's `{code, message}`, with what went wrong on the way (unreachable, TLS) said in
//! words a user can act on.

mod events;

pub use events::Heard;
use events::{follow_events, SILENCE};
use factdesk_api::annotators::Person;
use factdesk_api::call::Call;
use factdesk_api::packs::MergeOutcome;
use factdesk_api::upload::{ImportJob, PacksUpload, Upload};
use factdesk_api::{Error, ErrorCode, Result};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::time::Duration;
use ureq::tls::{RootCerts, TlsConfig};
use ureq::Agent;

/// How long connecting may take before the server counts as out of reach.
const CONNECT: Duration = Duration::from_secs(5);
/// How long one operation may take in all (an export preview of a large project reads
/// every answer).
const CALL: Duration = Duration::from_secs(120);
/// How long an import on the server may take in all.
const IMPORT: Duration = Duration::from_secs(60 * 60);
/// The largest response taken: a page of claims or the adjudication queue.
const MAX_RESPONSE: u64 = 256 * 1024 * 1024;
/// What the import routes answer with, as an error that cannot read it says.
const JOB: &str = "an import job";

/// A signed-in session on a server.
#[derive(Clone)]
pub struct Remote {
    /// `https://host:port`, without a trailing slash.
    pub url: String,
    token: String,
    /// Who the token acts for, as the server resolved them.
    pub person: Person,
    /// The device token the server gave this sign-in, for the next one (`devices`).
    pub device: String,
    agent: Agent,
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote")
            .field("url", &self.url)
            .field("person", &self.person)
            .finish_non_exhaustive()
    }
}

#[derive(Deserialize)]
struct Session {
    token: String,
    /// For this person's next sign-in from this app (a server before session 34 sends
    /// none).
    #[serde(default)]
    device: String,
}

#[derive(Deserialize)]
struct Failure {
    code: String,
    message: String,
}

fn agent(total: Option<Duration>) -> Agent {
    agent_with(total, None)
}

/// An agent whose every read waits at most `per_read` when given.
fn agent_with(total: Option<Duration>, per_read: Option<Duration>) -> Agent {
    Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(CONNECT))
        .timeout_global(total)
        .timeout_per_read(per_read)
        // The system's certificate store: a team's own CA installed there is trusted.
        .tls_config(
            TlsConfig::builder()
                .root_certs(RootCerts::PlatformVerifier)
                .build(),
        )
        .build()
        .into()
}

/// The server's address as typed, made canonical: a scheme (https when none is given),
/// no path, no trailing slash.
pub fn server_url(typed: &str) -> Result<String> {
    let typed = typed.trim().trim_end_matches('/');
    let invalid = |why: &str| {
        Error::new(
            ErrorCode::InvalidInput,
            format!("{typed:?} is not a server address: {why} (e.g. https://factdesk.example.org or http://127.0.0.1:4470)"),
        )
    };
    if typed.is_empty() {
        return Err(invalid("it is empty"));
    }
    let url = if typed.contains("://") {
        typed.to_string()
    } else {
        format!("https://{typed}")
    };
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .ok_or_else(|| invalid("only http:// and https:// are spoken"))?;
    if rest.is_empty() || rest.contains(['/', '?', '#', ' ', '@']) {
        return Err(invalid("give the host and port only"));
    }
    // A port, when given, is a number ("https:" alone would otherwise pass as a host).
    if let Some((host, port)) = rest.rsplit_once(':') {
        if !rest.starts_with('[') && (host.is_empty() || port.parse::<u16>().is_err()) {
            return Err(invalid("the port is not a number"));
        }
    }
    Ok(url)
}

/// A failure on the way to the server, in words a user can act on.
fn transport(url: &str, e: ureq::Error) -> Error {
    let text = e.to_string();
    match e {
        ureq::Error::Tls(_) | ureq::Error::Rustls(_) | ureq::Error::Pem(_) => Error::new(
            ErrorCode::Unavailable,
            format!("a secure (TLS) connection to {url} failed: {text}. Check the address, and that the server's certificate is trusted by this computer"),
        ),
        ureq::Error::Io(io) if io.get_ref().is_some_and(|inner| inner.is::<rustls::Error>()) => Error::new(
            ErrorCode::Unavailable,
            format!("a secure (TLS) connection to {url} failed: {text}. Check that the server's certificate is trusted by this computer"),
        ),
        ureq::Error::HostNotFound => Error::new(
            ErrorCode::Unavailable,
            format!("cannot find the server {url}: check its name"),
        ),
        ureq::Error::Timeout(_) => Error::new(
            ErrorCode::Unavailable,
            format!("no answer from {url} in time; try again"),
        ),
        _ => Error::new(
            ErrorCode::Unavailable,
            format!("cannot reach {url}: {text}. Check the address and that the server is running"),
        ),
    }
}

/// The api's error a server sent back, or one made from its status.
fn refusal(status: u16, body: &str) -> Error {
    let (code, message) = match serde_json::from_str::<Failure>(body) {
        Ok(f) => (f.code, f.message),
        Err(_) => (String::new(), format!("the server answered {status}")),
    };
    let code = serde_json::from_value::<ErrorCode>(serde_json::Value::String(code.clone()))
        .unwrap_or(match status {
            400 | 413 => ErrorCode::InvalidInput,
            401 => ErrorCode::Unauthorized,
            403 => ErrorCode::Forbidden,
            404 => ErrorCode::NotFound,
            409 => ErrorCode::Conflict,
            429 => ErrorCode::RateLimited,
            503 => ErrorCode::Unavailable,
            _ => ErrorCode::Io,
        });
    Error::new(code, message)
}

fn read_body(url: &str, response: ureq::http::Response<ureq::Body>) -> Result<(u16, String)> {
    let status = response.status().as_u16();
    let body = response
        .into_body()
        .into_with_config()
        .limit(MAX_RESPONSE)
        .read_to_string()
        .map_err(|e| transport(url, e))?;
    Ok((status, body))
}

/// Sends `call` to `POST /api/v1/call` with `token`: the operation's response.
fn send<T: DeserializeOwned>(agent: &Agent, url: &str, token: &str, call: &Call) -> Result<T> {
    let what = format!("its answer to {}", call.name());
    send_to(agent, url, token, "/api/v1/call", call, &what)
}

/// `POST route` with `body` and `token`: the answer, which the server sends as `what`.
fn send_to<T: DeserializeOwned>(
    agent: &Agent,
    url: &str,
    token: &str,
    route: &str,
    body: &impl serde::Serialize,
    what: &str,
) -> Result<T> {
    let response = agent
        .post(format!("{url}{route}"))
        .header("authorization", format!("Bearer {token}"))
        .send_json(body)
        .map_err(|e| transport(url, e))?;
    answer(url, response, what)
}

/// `GET route` with `token`: the answer, which the server sends as `what`.
fn get_from<T: DeserializeOwned>(
    agent: &Agent,
    url: &str,
    token: &str,
    route: &str,
    what: &str,
) -> Result<T> {
    let response = agent
        .get(format!("{url}{route}"))
        .header("authorization", format!("Bearer {token}"))
        .call()
        .map_err(|e| transport(url, e))?;
    answer(url, response, what)
}

/// A response read as `T`, or the error the server sent (an ended session said as such).
fn answer<T: DeserializeOwned>(
    url: &str,
    response: ureq::http::Response<ureq::Body>,
    what: &str,
) -> Result<T> {
    let (status, body) = read_body(url, response)?;
    if status != 200 {
        return Err(refused(url, status, &body));
    }
    read(url, &body, what)
}

/// The server's refusal of a signed-in person's request: an ended session said as such.
fn refused(url: &str, status: u16, body: &str) -> Error {
    let e = refusal(status, body);
    if e.code != ErrorCode::Unauthorized {
        return e;
    }
    Error::new(
        ErrorCode::Unauthorized,
        format!("your session on {url} ended (it expired, or a lead disabled you): sign in again"),
    )
}

/// `body`, which the server at `url` sent as `what`, read as the type this app expects: a
/// server that answers in another shape (another version) is an error saying what.
fn read<T: DeserializeOwned>(url: &str, body: &str, what: &str) -> Result<T> {
    serde_json::from_str(body).map_err(|e| {
        Error::new(
            ErrorCode::Io,
            format!(
                "the server at {url} sent {what} in a shape this app cannot read ({e}); is it another version?"
            ),
        )
    })
}

impl Remote {
    /// Signs `name` in on the server at `url` (as typed) with `password`, and the device
    /// token an earlier sign-in gave, if any.
    pub fn connect(url: &str, name: &str, password: &str, device: Option<&str>) -> Result<Remote> {
        let url = server_url(url)?;
        let agent = agent(Some(CALL));
        let login = match device {
            Some(device) => {
                serde_json::json!({"name": name, "password": password, "device": device})
            }
            None => serde_json::json!({"name": name, "password": password}),
        };
        let response = agent
            .post(format!("{url}/api/v1/login"))
            .send_json(&login)
            .map_err(|e| transport(&url, e))?;
        let (status, body) = read_body(&url, response)?;
        if status != 200 {
            let e = refusal(status, &body);
            return Err(match e.code {
                ErrorCode::Unauthorized => Error::new(
                    ErrorCode::Unauthorized,
                    format!("wrong name or password for {name} on {url}, or a lead disabled this person"),
                ),
                ErrorCode::RateLimited => Error::new(
                    ErrorCode::RateLimited,
                    format!("too many failed sign-ins for {name}; wait a few minutes and try again"),
                ),
                _ => e,
            });
        }
        let session: Session = serde_json::from_str(&body).map_err(|e| {
            Error::new(
                ErrorCode::Io,
                format!(
                    "the server at {url} is not a Factdesk server (its sign-in answer was not understood: {e})"
                ),
            )
        })?;
        let person = send(&agent, &url, &session.token, &Call::Me)?;
        Ok(Remote {
            url,
            token: session.token,
            person,
            device: session.device,
            agent,
        })
    }

    /// Runs `call` on the server for the signed-in person: its response, read as the
    /// operation's type (`T`); a server that answers in another shape (another version)
    /// is an error naming the operation.
    pub fn call<T: DeserializeOwned>(&self, call: &Call) -> Result<T> {
        send(&self.agent, &self.url, &self.token, call)
    }

    /// Sends files to import to the server, which starts importing them as a job for the
    /// signed-in person; the job as it starts.
    pub fn start_import(&self, upload: &Upload) -> Result<ImportJob> {
        // The files' bytes go up in this one request: as long as an upload may take.
        let agent = agent(Some(IMPORT));
        send_to(
            &agent,
            &self.url,
            &self.token,
            "/api/v1/imports",
            upload,
            JOB,
        )
    }

    /// Where import job `id` stands.
    pub fn import_job(&self, id: u64) -> Result<ImportJob> {
        let route = format!("/api/v1/imports/{id}");
        get_from(&self.agent, &self.url, &self.token, &route, JOB)
    }

    /// Asks import job `id` to stop; it ends `cancelled`, nothing imported.
    pub fn cancel_import(&self, id: u64) -> Result<ImportJob> {
        let route = format!("/api/v1/imports/{id}/cancel");
        // The route reads no body: `null`.
        send_to(&self.agent, &self.url, &self.token, &route, &(), JOB)
    }

    /// Sends returned packs to the server, which merges them; each pack's outcome.
    pub fn merge(&self, upload: &PacksUpload) -> Result<Vec<MergeOutcome>> {
        let agent = agent(Some(IMPORT));
        let what = "the outcomes of a merge";
        send_to(
            &agent,
            &self.url,
            &self.token,
            "/api/v1/merge",
            upload,
            what,
        )
    }

    /// Follows the server's events, calling `tick` with each, until it returns false
    /// (then `Ok`), the stream ends, or it stays silent longer than [`events::SILENCE`].
    pub fn follow(&self, tick: impl FnMut(Heard) -> bool) -> Result<()> {
        follow_events(&self.url, &self.token, SILENCE, tick)
    }

    /// Ends the session on the server; failing to is only logged (it expires anyway).
    pub fn sign_out(&self) {
        let sent = self
            .agent
            .post(format!("{}/api/v1/logout", self.url))
            .header("authorization", format!("Bearer {}", self.token))
            .send_empty();
        if let Err(e) = sent {
            tracing::warn!("could not sign out of {}: {e}", self.url);
        }
    }
}

/// A team server played by the tests: one answer to one request.
#[cfg(test)]
pub(crate) mod fake {
    use super::{agent, Remote, CALL};
    use factdesk_api::annotators::{Person, Role};
    use std::io::{Read, Write};

    /// Whether `request` (head and body) has come whole.
    fn whole(request: &[u8]) -> bool {
        let text = String::from_utf8_lossy(request);
        let Some(head) = text.find("\r\n\r\n") else {
            return false;
        };
        let lower = text[..head].to_ascii_lowercase();
        if lower.contains("transfer-encoding: chunked") {
            return text.ends_with("0\r\n\r\n");
        }
        let length = lower
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse::<usize>().ok())
            .unwrap_or(0);
        request.len() >= head + 4 + length
    }

    /// A server on a loopback port that answers its first request with `status` and
    /// `body`; its address.
    pub fn answering(status: u16, body: &'static str) -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(1);
        std::thread::spawn(move || {
            let Ok((mut stream, _)) = listener.accept() else {
                return;
            };
            // The whole request is read first: closing on unread bytes would reset the
            // connection before the client reads the answer.
            let mut request = Vec::new();
            let mut buf = [0u8; 4096];
            while !whole(&request) {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => request.extend_from_slice(&buf[..n]),
                }
            }
            let answer = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(answer.as_bytes());
        });
        format!("http://127.0.0.1:{port}")
    }

    /// A session on `url` for maria, a lead, as if she had signed in.
    pub fn signed_in(url: String) -> Remote {
        Remote {
            url,
            token: "t".into(),
            person: Person {
                name: "maria".into(),
                role: Role::Lead,
                has_password: true,
            },
            device: String::new(),
            agent: agent(Some(CALL)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_address_becomes_scheme_host_and_port() {
        assert_eq!(
            server_url(" factdesk.example.org/ ").ok().as_deref(),
            Some("https://factdesk.example.org")
        );
        assert_eq!(
            server_url("http://127.0.0.1:4470").ok().as_deref(),
            Some("http://127.0.0.1:4470")
        );
        for bad in ["", "ftp://x", "https://", "https://h/api", "https://u:p@h"] {
            let e = server_url(bad).err().map(|e| e.code);
            assert_eq!(e, Some(ErrorCode::InvalidInput), "{bad:?}");
        }
    }

    #[test]
    fn an_unreachable_server_and_a_failed_handshake_say_so() {
        // A port with no one listening, held for the test: bound but never listening, so
        // a connection to it is refused, and no other socket (a test's bind to port 0, an
        // outgoing connection's own port) can take it meanwhile, as one closed at once could.
        let held = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)
            .unwrap_or_else(|e| panic!("{e}"));
        held.bind(&std::net::SocketAddr::from(([127, 0, 0, 1], 0)).into())
            .unwrap_or_else(|e| panic!("{e}"));
        let free = held
            .local_addr()
            .ok()
            .and_then(|a| a.as_socket())
            .map(|a| a.port())
            .unwrap_or_else(|| panic!("the held socket has no port"));
        let refused = Remote::connect(&format!("http://127.0.0.1:{free}"), "ana", "x", None);
        drop(held);
        let refused = refused
            .err()
            .unwrap_or_else(|| panic!("nobody listens there"));
        assert_eq!(refused.code, ErrorCode::Unavailable);
        assert!(
            refused.message.contains("cannot reach"),
            "{}",
            refused.message
        );

        // Something that speaks plain text where TLS was asked for.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(1);
        std::thread::spawn(move || {
            if let Ok((mut stream, _)) = listener.accept() {
                use std::io::Write;
                let _ = stream.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\nnot tls\r\n");
            }
        });
        let tls = Remote::connect(&format!("https://127.0.0.1:{port}"), "ana", "x", None);
        let tls = tls.err().unwrap_or_else(|| panic!("no TLS was spoken"));
        assert_eq!(tls.code, ErrorCode::Unavailable);
        assert!(tls.message.contains("TLS"), "{}", tls.message);
    }

    #[test]
    fn a_servers_answer_is_read_as_the_operations_response_and_another_shape_names_it() {
        use factdesk_api::annotate::Ack;
        let submit = Call::SubmitAnswer {
            answer: Default::default(),
        };
        let url = fake::answering(200, r#"{"ack":"stored","task_id":7}"#);
        let ack: Ack = fake::signed_in(url)
            .call(&submit)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((ack.ack.as_str(), ack.task_id), ("stored", 7));

        let url = fake::answering(200, r#"{"ack":"stored","task":"seven"}"#);
        let e = fake::signed_in(url.clone()).call::<Ack>(&submit).err();
        let e = e.unwrap_or_else(|| panic!("another shape was read as an ack"));
        assert_eq!(e.code, ErrorCode::Io);
        assert!(
            e.message.contains("its answer to submit_answer") && e.message.contains(&url),
            "{}",
            e.message
        );

        // A refusal is the server's error, whatever type was expected.
        let url = fake::answering(403, r#"{"code":"forbidden","message":"ana is not a lead"}"#);
        let e = fake::signed_in(url)
            .call::<Ack>(&submit)
            .err()
            .map(|e| e.code);
        assert_eq!(e, Some(ErrorCode::Forbidden));
    }

    #[test]
    fn a_servers_refusal_keeps_its_code_and_message() {
        let e = refusal(403, r#"{"code":"forbidden","message":"ana is not a lead"}"#);
        assert_eq!(
            (e.code, e.message.as_str()),
            (ErrorCode::Forbidden, "ana is not a lead")
        );
        let e = refusal(413, r#"{"code":"too_large","message":"too big"}"#);
        assert_eq!(e.code, ErrorCode::InvalidInput);
        let e = refusal(502, "<html>bad gateway</html>");
        assert_eq!(
            (e.code, e.message.as_str()),
            (ErrorCode::Io, "the server answered 502")
        );
    }
}
