//! HTTPS with a given certificate and key: the server speaks TLS (rustls) and nothing in
//! clear on the same port.

use crate::harness::{ok, password};
use factdesk_api::annotators::Role;
use factdesk_api::sign_in::SignInPolicy;
use factdesk_api::SystemClock;
use factdesk_server::{AppState, Tls};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// One request over a new TLS connection offering HTTP/2 and HTTP/1.1, as a browser
/// does: the protocol the server chose, and the response.
async fn over_tls(
    connector: &tokio_rustls::TlsConnector,
    addr: std::net::SocketAddr,
    request: &str,
) -> (Option<Vec<u8>>, String) {
    let tcp = ok(tokio::net::TcpStream::connect(addr).await);
    let name = ok(tokio_rustls::rustls::pki_types::ServerName::try_from(
        "localhost",
    ));
    let mut stream = ok(connector.connect(name, tcp).await);
    let chosen = stream.get_ref().1.alpn_protocol().map(<[u8]>::to_vec);
    ok(stream.write_all(request.as_bytes()).await);
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response).await;
    (chosen, String::from_utf8_lossy(&response).into_owned())
}

/// A request of the server's own page with `cookie`.
fn with_cookie(cookie: &str) -> String {
    let body = r#"{"op":"me"}"#;
    format!(
        "POST /api/v1/call HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nX-Factdesk-Browser: 1\r\nContent-Type: application/json\r\nCookie: {cookie}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_speaks_tls_with_the_given_certificate_and_key() {
    let dir = ok(tempfile::tempdir());
    let cert = ok(rcgen::generate_simple_self_signed(vec![
        "localhost".to_string()
    ]));
    let (cert_path, key_path) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    ok(std::fs::write(&cert_path, cert.cert.pem()));
    ok(std::fs::write(&key_path, cert.key_pair.serialize_pem()));
    let project = dir.path().join("p.fdesk");
    {
        let mut p = ok(factdesk_api::Project::create(
            &project,
            Box::new(SystemClock),
        ));
        let owner = ok(p.as_lead(&ok(p.lead_or_owner(None)), "act as a lead"));
        ok(p.add_annotator_with_password(&owner, "ana", Role::Annotator, &password("ana")));
    }
    let open = factdesk_server::opener(project, || Box::new(SystemClock));
    let state = AppState::new(open, 2, SignInPolicy::default(), 4096);
    let listener = ok(std::net::TcpListener::bind("127.0.0.1:0"));
    let addr = ok(listener.local_addr());
    let tls = Tls {
        cert: cert_path,
        key: key_path,
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(factdesk_server::serve_on(
        listener,
        state,
        Some(tls),
        async move {
            let _ = stopped.await;
        },
    ));
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;

    let mut roots = tokio_rustls::rustls::RootCertStore::empty();
    ok(roots.add(cert.cert.der().clone()));
    let mut config = ok(
        tokio_rustls::rustls::ClientConfig::builder_with_provider(Arc::new(
            tokio_rustls::rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .map(|b| b.with_root_certificates(roots).with_no_client_auth()),
    );
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let (_, response) = over_tls(
        &connector,
        addr,
        "GET /api/v1/openapi.json HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.contains("\"openapi\""));

    // A browser offers HTTP/2 first; the server speaks HTTP/1.1 only and must choose it
    // (it chose HTTP/2 and closed every browser's connection, fourteenth hostile pass).
    let (chosen, _) = over_tls(
        &connector,
        addr,
        "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(chosen.as_deref(), Some(&b"http/1.1"[..]));

    // Over TLS the session is the `__Host-` cookie only: one of the plain name, which a
    // sibling site can set for the parent domain, is no session, and beside the real
    // one it is ignored rather than taken for a second session.
    let login = format!(r#"{{"name":"ana","password":"{}"}}"#, password("ana"));
    let (_, signed_in) = over_tls(
        &connector,
        addr,
        &format!(
            "POST /api/v1/login HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nX-Factdesk-Browser: 1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{login}",
            login.len()
        ),
    )
    .await;
    let token = signed_in
        .split("__Host-factdesk_session=")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .unwrap_or_default()
        .to_string();
    assert!(!token.is_empty(), "{signed_in}");
    let (_, real) = over_tls(
        &connector,
        addr,
        &with_cookie(&format!("__Host-factdesk_session={token}")),
    )
    .await;
    assert!(
        real.starts_with("HTTP/1.1 200") && real.contains("\"ana\""),
        "{real}"
    );
    let (_, plain) = over_tls(
        &connector,
        addr,
        &with_cookie(&format!("factdesk_session={token}")),
    )
    .await;
    assert!(plain.starts_with("HTTP/1.1 401"), "{plain}");
    let (_, both) = over_tls(
        &connector,
        addr,
        &with_cookie(&format!(
            "factdesk_session=planted; __Host-factdesk_session={token}"
        )),
    )
    .await;
    assert!(
        both.starts_with("HTTP/1.1 200") && both.contains("\"ana\""),
        "{both}"
    );

    // Plain HTTP on the TLS port gets no API answer.
    let mut plain = ok(tokio::net::TcpStream::connect(addr).await);
    ok(plain
        .write_all(
            b"GET /api/v1/openapi.json HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
        )
        .await);
    let mut answer = Vec::new();
    let _ = plain.read_to_end(&mut answer).await;
    assert!(!String::from_utf8_lossy(&answer).contains("\"openapi\""));
    let _ = stop.send(());
}
