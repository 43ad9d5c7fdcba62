//! Issue 31: device tokens. The token an earlier sign-in gave back signs its owner in
//! past guesses made from the owner's own address, and a refusal says the limit that
//! refused and when it ends.

use crate::harness::{error_of, ok, password, Team};
use factdesk_api::sign_in::SignInPolicy;
use serde_json::json;

/// Regression (hostile pass of session 34): five wrong passwords for the lead's name
/// from the lead's own address held the lead's right password there for 15 minutes. The
/// device token the lead's earlier sign-in gave (in the answer's JSON for the app, in an
/// HttpOnly cookie for a browser) signs the lead in past them; without it, held.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_device_token_signs_the_lead_in_past_guesses_from_the_leads_own_address() {
    let team = Team::start(SignInPolicy::default()).await;
    let nat = Team::client_from("127.0.0.7");
    let first = team.login_with(&nat, "maria", &password("maria")).await;
    assert_eq!(first.status(), 200);
    let first: serde_json::Value = ok(first.json().await);
    let device = first["device"].as_str().unwrap_or_default().to_string();
    assert_eq!(device.len(), 65, "{first}");
    // A browser keeps its token in a cookie sent back with its sign-ins.
    let page = |cookie: &str| {
        nat.post(team.url("/api/v1/login"))
            .header("x-factdesk-browser", "1")
            .header("cookie", cookie)
            .json(&json!({"name": "maria", "password": password("maria")}))
    };
    let signed = ok(page("").send().await);
    assert_eq!(signed.status(), 200);
    let kept = (signed.headers().get_all("set-cookie").iter())
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with("factdesk_device=") && c.contains("HttpOnly"))
        .and_then(|c| c.split(';').next())
        .map(str::to_string);
    let kept = kept.unwrap_or_else(|| panic!("no device cookie"));
    for i in 0..5 {
        let guess = team.login_with(&nat, "maria", &format!("guess {i}")).await;
        assert_eq!(guess.status(), 401);
    }
    let held = team.login_with(&nat, "maria", &password("maria")).await;
    assert_eq!(held.status(), 429);
    let with_token = ok(nat
        .post(team.url("/api/v1/login"))
        .json(&json!({"name": "maria", "password": password("maria"), "device": device}))
        .send()
        .await);
    assert_eq!(with_token.status(), 200);
    let from_browser = ok(page(&kept).send().await);
    assert_eq!(from_browser.status(), 200);
    // A cookie planted beside hers, before or after, leaves hers standing.
    let many = "factdesk_device=junk; ".repeat(40);
    for planted in [
        format!("factdesk_device=junk; {kept}"),
        format!("{kept}; factdesk_device=junk"),
        format!("{many}{kept}"),
    ] {
        let beside = ok(page(&planted).send().await);
        assert_eq!(beside.status(), 200, "{planted}");
    }
    let without = ok(page("").send().await);
    assert_eq!(without.status(), 429);
    // A made-up token is no token: still held.
    let forged = ok(nat
        .post(team.url("/api/v1/login"))
        .json(&json!({"name": "maria", "password": password("maria"), "device": format!("{}.{}", "0".repeat(32), "0".repeat(32))}))
        .send()
        .await);
    assert_eq!(forged.status(), 429);

    // Regression (targeted check of session 34): past the name's 10 sign-ins a minute,
    // the token's holder was told to wait out the hold the token spares them (895 s for
    // 55 s). Seven sign-ins so far; the eighth to tenth go through.
    let with_token = || {
        nat.post(team.url("/api/v1/login"))
            .json(&json!({"name": "maria", "password": password("maria"), "device": device}))
            .send()
    };
    for _ in 8..=10 {
        assert_eq!(ok(with_token().await).status(), 200);
    }
    let capped = ok(with_token().await);
    let retry = retry_after(&capped);
    let (status, code, message) = error_of(capped).await;
    assert_eq!((status, code.as_str()), (429, "rate_limited"), "{message}");
    assert!(
        message.contains("sign-ins for this name in a minute"),
        "{message}"
    );
    assert!((1..=60).contains(&retry), "Retry-After {retry}: {message}");
    // From an address the name never used, refused before any password is checked: the
    // message named failed sign-ins, of which there were none there.
    let elsewhere = Team::client_from("127.0.0.8");
    let refused = team
        .login_with(&elsewhere, "maria", &password("maria"))
        .await;
    let retry = retry_after(&refused);
    let (status, _, message) = error_of(refused).await;
    assert_eq!(status, 429, "{message}");
    assert!(
        message.contains("too many sign-ins for this name in a minute"),
        "{message}"
    );
    assert!((1..=60).contains(&retry), "Retry-After {retry}: {message}");
}

/// The seconds of a response's `Retry-After` (0 without one).
fn retry_after(response: &reqwest::Response) -> u64 {
    (response.headers().get("retry-after"))
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}
