//! HTTPS with a given certificate and key: the server speaks TLS (rustls) and nothing in
//! clear on the same port.

use crate::harness::ok;
use factdesk_api::sign_in::SignInPolicy;
use factdesk_api::SystemClock;
use factdesk_server::{AppState, Tls};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

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
    drop(ok(factdesk_api::Project::create(
        &project,
        Box::new(SystemClock),
    )));
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
    let config = tokio_rustls::rustls::ClientConfig::builder_with_provider(Arc::new(
        tokio_rustls::rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map(|b| b.with_root_certificates(roots).with_no_client_auth());
    let connector = tokio_rustls::TlsConnector::from(Arc::new(ok(config)));
    let tcp = ok(tokio::net::TcpStream::connect(addr).await);
    let name = ok(tokio_rustls::rustls::pki_types::ServerName::try_from(
        "localhost",
    ));
    let mut stream = ok(connector.connect(name, tcp).await);
    ok(stream
        .write_all(
            b"GET /api/v1/openapi.json HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
        )
        .await);
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response).await;
    let response = String::from_utf8_lossy(&response);
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.contains("\"openapi\""));

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
