//! How a simulated annotator reaches the server: as the desktop app does (a bearer token,
//! `GET /api/v1/next` and `POST /api/v1/answers`) or, with `--browser`, as the browser
//! client does (the page and its script fetched first, a session cookie sent with the
//! page's header, every operation through `POST /api/v1/call`, each answer with its key).

use reqwest::{Client, RequestBuilder};
use serde_json::{json, Value};

/// The header the server's own page sends with every request.
const OURS: &str = "x-factdesk-browser";

/// A signed-in annotator's credentials, and so their way in.
pub enum Way {
    App(String),
    Browser(String),
}

impl Way {
    /// The request for the next item of `kind`.
    pub fn next(&self, http: &Client, base: &str, kind: &str) -> RequestBuilder {
        match self {
            Way::App(token) => http
                .get(format!("{base}/api/v1/next?kind={kind}"))
                .bearer_auth(token),
            Way::Browser(cookie) => {
                call(http, base, cookie).json(&json!({"op": "next_item", "args": {"kind": kind}}))
            }
        }
    }

    /// The request that submits `answer`; in a browser with `key`, the same on a retry.
    pub fn submit(&self, http: &Client, base: &str, answer: &Value, key: &str) -> RequestBuilder {
        match self {
            Way::App(token) => http
                .post(format!("{base}/api/v1/answers"))
                .bearer_auth(token)
                .json(answer),
            Way::Browser(cookie) => {
                let mut answer = answer.clone();
                answer["key"] = json!(key);
                call(http, base, cookie)
                    .json(&json!({"op": "submit_answer", "args": {"answer": answer}}))
            }
        }
    }
}

fn call(http: &Client, base: &str, cookie: &str) -> RequestBuilder {
    http.post(format!("{base}/api/v1/call"))
        .header(reqwest::header::COOKIE, cookie)
        .header(OURS, "1")
}

/// Opens the page and signs in from it, trying again each second for ten minutes: a
/// sign-in is slow on purpose, and 200 at once meet 503s and wait their turn. The
/// session cookie, or why not.
pub async fn sign_in_from_the_page(
    http: &Client,
    base: &str,
    login: &Value,
) -> Result<String, String> {
    let mut tries = 0;
    loop {
        match page_then_sign_in(http, base, login).await {
            Ok(cookie) => return Ok(cookie),
            Err(e) if tries >= 600 => return Err(e),
            Err(_) => tries += 1,
        }
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    }
}

/// Opens the page as a browser does (the page, then the script it names), then signs in
/// from it: the session cookie (`factdesk_session=…`), or why not.
async fn page_then_sign_in(http: &Client, base: &str, login: &Value) -> Result<String, String> {
    let page = http
        .get(format!("{base}/"))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let html = page.text().await.map_err(|e| e.to_string())?;
    let script = html
        .split('"')
        .find(|s| s.starts_with("/assets/") && s.ends_with(".js"))
        .ok_or("the page names no script")?;
    let asset = http
        .get(format!("{base}{script}"))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if !asset.status().is_success() {
        return Err(format!("{script}: {}", asset.status()));
    }
    let signed = http
        .post(format!("{base}/api/v1/login"))
        .header(OURS, "1")
        .json(login)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if !signed.status().is_success() {
        return Err(format!(
            "{}: {}",
            signed.status(),
            signed.text().await.unwrap_or_default()
        ));
    }
    signed
        .headers()
        .get(reqwest::header::SET_COOKIE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(str::to_string)
        .ok_or_else(|| "no session cookie".to_string())
}
