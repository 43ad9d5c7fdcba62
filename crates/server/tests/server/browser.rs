//! Issue 34: the server serves the app's screens to a browser. The page and its assets
//! come with a policy that lets them load and call nothing but this server, and no path
//! reaches past the embedded files; a browser's session is an HttpOnly, SameSite=Strict
//! cookie that works only with the page's own header (another site's form sends the
//! cookie, never the header), that no cookie set before sign-in can become, and that
//! another project's server does not know.

use crate::harness::{error_of, ok, password, Team};
use factdesk_api::sign_in::SignInPolicy;
use reqwest::header::{CONTENT_TYPE, COOKIE, SET_COOKIE};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const OURS: &str = "x-factdesk-browser";

/// `path` sent as written (reqwest would resolve "..") with Connection: close; the
/// status line of the answer.
async fn raw_status(team: &Team, path: &str) -> String {
    let address = team.base.trim_start_matches("http://").to_string();
    let mut stream = ok(tokio::net::TcpStream::connect(address).await);
    let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    ok(stream.write_all(request.as_bytes()).await);
    let mut answer = Vec::new();
    ok(stream.read_to_end(&mut answer).await);
    let answer = String::from_utf8_lossy(&answer).to_string();
    assert!(
        !answer.contains("[workspace]") && !answer.contains("root:"),
        "{path}: {answer}"
    );
    answer.lines().next().unwrap_or_default().to_string()
}

/// Signs `name` in as the page does: the response (its cookie, its body).
async fn browser_login(team: &Team, name: &str, cookie: Option<&str>) -> reqwest::Response {
    let mut request = team
        .http
        .post(team.url("/api/v1/login"))
        .header(OURS, "1")
        .json(&json!({"name": name, "password": password(name)}));
    if let Some(cookie) = cookie {
        request = request.header(COOKIE, cookie);
    }
    ok(request.send().await)
}

/// `factdesk_session=…` from a response's Set-Cookie.
fn session_of(response: &reqwest::Response) -> String {
    let set = response
        .headers()
        .get(SET_COOKIE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    set.split(';').next().unwrap_or_default().to_string()
}

/// `op` with the cookie, with or without the page's header.
async fn call(team: &Team, cookie: &str, ours: bool, op: serde_json::Value) -> reqwest::Response {
    let mut request = team
        .http
        .post(team.url("/api/v1/call"))
        .header(COOKIE, cookie)
        .body(op.to_string());
    // Another site's form can send text/plain only, and never a header of ours.
    request = if ours {
        request
            .header(OURS, "1")
            .header(CONTENT_TYPE, "application/json")
    } else {
        request.header(CONTENT_TYPE, "text/plain")
    };
    ok(request.send().await)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_comes_with_a_strict_policy_and_no_path_reaches_past_the_embedded_files() {
    let team = Team::start(SignInPolicy::default()).await;
    let page = ok(team.http.get(team.url("/")).send().await);
    assert_eq!(page.status(), 200);
    let header = |r: &reqwest::Response, name: &str| {
        r.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    assert!(header(&page, "content-type").starts_with("text/html"));
    assert_eq!(header(&page, "cache-control"), "no-cache");
    let csp = header(&page, "content-security-policy");
    for rule in [
        "default-src 'none'",
        "script-src 'self'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
        "form-action 'none'",
    ] {
        assert!(csp.contains(rule), "{csp} lacks {rule}");
    }
    assert!(!csp.contains("unsafe"), "{csp}");
    assert_eq!(header(&page, "x-content-type-options"), "nosniff");
    let html = ok(page.text().await);
    let script = html
        .split('"')
        .find(|s| s.starts_with("/assets/") && s.ends_with(".js"))
        .unwrap_or_default()
        .to_string();
    let asset = ok(team.http.get(team.url(&script)).send().await);
    assert_eq!(asset.status(), 200, "{script}");
    assert!(header(&asset, "content-type").starts_with("text/javascript"));
    assert!(header(&asset, "cache-control").contains("immutable"));
    for path in [
        "/assets/../../Cargo.toml",
        "/assets/..%2f..%2fCargo.toml",
        "/assets/%2e%2e/%2e%2e/Cargo.toml",
        "/assets/../../../../../../etc/passwd",
        "/assets//etc/passwd",
        "/assets/",
        "/assets/index.html",
        "/..",
    ] {
        let status = raw_status(&team, path).await;
        assert!(
            status.starts_with("HTTP/1.1 404") || status.starts_with("HTTP/1.1 400"),
            "{path}: {status}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browsers_session_is_a_cookie_only_the_servers_own_page_can_use() {
    let team = Team::start(SignInPolicy::default()).await;
    let login = browser_login(&team, "ana", None).await;
    assert_eq!(login.status(), 200);
    let set = login
        .headers()
        .get(SET_COOKIE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    assert!(set.contains("; HttpOnly"), "{set}");
    assert!(set.contains("; SameSite=Strict"), "{set}");
    assert!(set.contains("; Path=/"), "{set}");
    // Over plain HTTP to loopback: not Secure (the browser would drop it on a LAN).
    assert!(!set.contains("Secure"), "{set}");
    let cookie = session_of(&login);
    let body: serde_json::Value = ok(login.json().await);
    assert!(
        body.get("token").is_none(),
        "no script can read the token: {body}"
    );
    assert_eq!(body["role"], "annotator");

    // The page's own calls work; the same cookie without the header, as another site's
    // form would send it, is refused and does nothing.
    let me = call(&team, &cookie, true, json!({"op": "me"})).await;
    assert_eq!(me.status(), 200);
    let next = call(
        &team,
        &cookie,
        true,
        json!({"op": "next_item", "args": {"kind": "evidence"}}),
    )
    .await;
    let next: serde_json::Value = ok(next.json().await);
    let item = &next["item"];
    let answer = json!({"op": "submit_answer", "args": {"answer": {
        "task_id": item["task_id"], "selected": [item["options"][0]["id"]]
    }}});
    let before = team.counts().annotations;
    let forged = call(&team, &cookie, false, answer.clone()).await;
    let (status, code, message) = error_of(forged).await;
    assert_eq!((status, code.as_str()), (403, "forbidden"), "{message}");
    assert_eq!(team.counts().annotations, before, "nothing was stored");
    assert_eq!(call(&team, &cookie, true, answer).await.status(), 200);
    assert_eq!(team.counts().annotations, before + 1);
    // The lead's event stream takes the cookie too (maria's).
    let maria = session_of(&browser_login(&team, "maria", None).await);
    let events = ok(team
        .http
        .get(team.url("/api/v1/events"))
        .header(COOKIE, &maria)
        .header(OURS, "1")
        .send()
        .await);
    assert_eq!(events.status(), 200);
    drop(events);

    // Signing out clears the cookie and ends the session.
    let out = ok(team
        .http
        .post(team.url("/api/v1/logout"))
        .header(COOKIE, &cookie)
        .header(OURS, "1")
        .send()
        .await);
    assert_eq!(out.status(), 204);
    let cleared = out
        .headers()
        .get(SET_COOKIE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    assert!(
        cleared.starts_with("factdesk_session=;") && cleared.contains("Max-Age=0"),
        "{cleared}"
    );
    assert_eq!(
        call(&team, &cookie, true, json!({"op": "me"}))
            .await
            .status(),
        401
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_cookie_set_before_sign_in_becomes_a_session_and_another_servers_is_unknown() {
    let team = Team::start(SignInPolicy::default()).await;
    // Session fixation: a cookie planted before sign-in is replaced, never adopted.
    let planted = "factdesk_session=planted-by-someone-else";
    let login = browser_login(&team, "ana", Some(planted)).await;
    assert_eq!(login.status(), 200);
    let given = session_of(&login);
    assert_ne!(given, planted);
    assert_eq!(
        call(&team, planted, true, json!({"op": "me"}))
            .await
            .status(),
        401
    );
    assert_eq!(
        call(&team, &given, true, json!({"op": "me"}))
            .await
            .status(),
        200
    );
    // A second session cookie, planted by another port of this host or a sibling site
    // with a narrower path so that it comes first: neither counts, and the person is
    // told why (thirteenth hostile pass: her answers went to the planter's account).
    let planted_first = format!("factdesk_session=planted-by-eve; {given}");
    let (status, _, message) =
        error_of(call(&team, &planted_first, true, json!({"op": "me"})).await).await;
    assert_eq!(status, 401, "{message}");
    assert!(message.contains("two Factdesk sessions"), "{message}");
    // A session of another project's server means nothing here.
    let other = Team::start(SignInPolicy::default()).await;
    let elsewhere = session_of(&browser_login(&other, "ana", None).await);
    assert_eq!(
        call(&team, &elsewhere, true, json!({"op": "me"}))
            .await
            .status(),
        401
    );
}

/// Fifteenth hostile pass: behind proxies that list one protocol each, the browser's
/// TLS was missed ("https, http" is not "https"), so its session cookie was the plain
/// one and a sibling site's plain cookie was taken. Any https in the list now counts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_chain_of_proxies_any_https_makes_the_session_the_host_cookie() {
    let team = Team::start_behind("127.0.0.1").await;
    let signed_in = ok(team
        .http
        .post(team.url("/api/v1/login"))
        .header(OURS, "1")
        .header("x-forwarded-proto", "https, http")
        .json(&json!({"name": "ana", "password": password("ana")}))
        .send()
        .await);
    let cookie = session_of(&signed_in);
    assert!(cookie.starts_with("__Host-factdesk_session="), "{cookie}");
    let token = cookie.split_once('=').map(|(_, t)| t).unwrap_or_default();
    let me = |cookie: String| {
        let request = team
            .http
            .post(team.url("/api/v1/call"))
            .header(COOKIE, cookie)
            .header(OURS, "1")
            .header(CONTENT_TYPE, "application/json")
            .header("x-forwarded-proto", "https,http")
            .body(json!({"op": "me"}).to_string());
        async move { ok(request.send().await).status().as_u16() }
    };
    assert_eq!(me(format!("__Host-factdesk_session={token}")).await, 200);
    assert_eq!(me(format!("factdesk_session={token}")).await, 401);
}
