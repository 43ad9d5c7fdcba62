//! Signing in and out over HTTP: the sign-in limits and password-check slots the
//! server keeps (docs/server.md), and the marks that tell the door whose a connection is.

mod checking;

use super::{parse, Body, Reply};
use crate::error::ApiError;
use crate::gate::bearer;
use crate::AppState;
use axum::extract::{ConnectInfo, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
pub(crate) use checking::Checking;
use factdesk_api::sign_in::Login;
use std::net::SocketAddr;
use std::time::Instant;

pub(super) async fn login(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    raw: Body,
) -> Reply<Response> {
    let login: Login = parse(&raw.0?)?;
    let policy = state.policy;
    let browser = crate::browser::from_our_page(&headers);
    let secure = crate::browser::over_tls(&state, peer, &headers);
    let address = crate::caller::caller(&state, peer, &headers);
    let offered = devices_offered(&login, browser, secure, &headers);
    let (known, lead, device) = standing(&state, &login.name, &address, offered).await?;
    // A much-guessed name is checked at most once a few seconds from elsewhere, and a
    // sign-in sooner is answered at once, never held: sleeping here kept its connection
    // "being answered", and a few hundred such sign-ins held every place the server had
    // (seventh hostile pass). Not at all from where it signed in before: 20 guesses from
    // elsewhere made its owner wait 5 s for 15 minutes (fifth pass of session 26).
    // One check of a name at once from elsewhere, claimed before its spacing is read and
    // held until the attempt is recorded, so a burst finds the spacing as its first check
    // left it.
    let claim = if known {
        None
    } else {
        // An address (or address and name) past its budget is refused before it may
        // claim the name: refused inside the check, its attempts were never recorded, and
        // a spent address kept every newcomer's sign-in of the names it held claimed
        // answered 429 (eleventh hostile pass, 12 of 26 through).
        let (name, from) = (login.name.clone(), address.clone());
        let refusal = state
            .pool
            .run(move |p| p.sign_in_refusal(&name, &from, &policy))
            .await?
            .filter(|refused| refused.retry_in_ms.is_some_and(|ms| ms > 0));
        if let Some(refused) = refusal {
            return Err(refused.into());
        }
        let Some(claim) = state.checking.claim_name(&login.name) else {
            let refused = factdesk_api::Error::new(
                factdesk_api::ErrorCode::RateLimited,
                "another sign-in of this name is being checked; try again in 1 s",
            );
            return Err(ApiError::from(refused).retry_after(1));
        };
        let name = login.name.clone();
        state
            .pool
            .run(move |p| p.check_sign_in_spacing(&name, &policy))
            .await?;
        Some(claim)
    };
    // Of the shared checks, one block holds or waits for one at a time.
    let place =
        (!known && !lead).then(|| state.checking.queue(checking::block_of_caller(&address)));
    let turn = password_turn(&state, known, lead, place.as_ref()).await?;
    // The turn, the block's place and the name's claim go with the check: a client that
    // hangs up drops this handler, but not the check already running, which held them
    // only as long as the request (eleventh hostile pass: sign-ins abandoned after 20 ms
    // ran 8 argon2 checks at once where 2 are shared).
    let held = (turn, place, claim);
    let session = state
        .pool
        .run(move |p| {
            let _held = held;
            p.login_from(
                &login.name,
                &login.password,
                &address,
                device.as_deref(),
                &policy,
            )
        })
        .await;
    match session {
        Ok(session) => {
            let token = crate::answering::SignedIn {
                token: session.token.as_str().into(),
                person: session.person,
            };
            let mut response = if browser {
                browser_session(&session, secure)
            } else {
                Json(session).into_response()
            };
            response.extensions_mut().insert(token);
            Ok(response)
        }
        // A refusal carries when its limit ends, sent as `Retry-After`.
        Err(e) => Err(e.into()),
    }
}

/// The device tokens of earlier sign-ins a sign-in offers: the request's, then for a
/// browser its cookies'.
fn devices_offered(login: &Login, browser: bool, secure: bool, headers: &HeaderMap) -> Vec<String> {
    let mut offered: Vec<String> = login.device.iter().cloned().collect();
    if browser {
        offered.extend(crate::browser::cookie_devices(headers, secure));
    }
    offered
}

/// Whether `name` is known here (signed in from `address` before, or vouched for by one
/// of the `offered` device tokens, which then counts as such an address), whether it is
/// a lead's name, and the token that vouched.
async fn standing(
    state: &AppState,
    name: &str,
    address: &str,
    offered: Vec<String>,
) -> Reply<(bool, bool, Option<String>)> {
    let (name, from, policy) = (name.to_string(), address.to_string(), state.policy);
    Ok(state
        .pool
        .run(move |p| {
            let tokens: Vec<&str> = offered.iter().map(String::as_str).collect();
            let device = p
                .vouching_device(&name, &tokens, &policy)?
                .map(str::to_string);
            let known = device.is_some() || p.signed_in_here_before(&name, &from)?;
            Ok((known, p.is_lead_name(&name)?, device))
        })
        .await?)
}

/// A turn to check a password, within the server's wait: a shared check, or the one
/// kept for a name known at its address or for a lead; behind `place`'s turn in its
/// block when there is one.
async fn password_turn(
    state: &AppState,
    known: bool,
    lead: bool,
    place: Option<&checking::BlockPlace>,
) -> Result<Vec<tokio::sync::OwnedSemaphorePermit>, ApiError> {
    let (shared, kept) = (state.hashing.clone(), state.hashing_known.clone());
    let leads = state.hashing_lead.clone();
    let block_turn = place.map(checking::BlockPlace::turn);
    // A block that checked a few times in the last minute waits in the busy blocks' one
    // lane, so a block with none finds a shared check free.
    let busy_lane = place.and_then(|p| p.checking().busy_lane(p.block(), Instant::now()));
    let turn = async move {
        let mut held = Vec::new();
        if let Some(turn) = block_turn {
            held.push(turn.acquire_owned().await.ok()?);
        }
        if let Some(lane) = busy_lane {
            held.push(lane.acquire_owned().await.ok()?);
        }
        let shared = match (known, lead) {
            (_, true) => tokio::select! {
                turn = shared.acquire_owned() => turn,
                turn = kept.acquire_owned() => turn,
                turn = leads.acquire_owned() => turn,
            },
            (true, false) => tokio::select! {
                turn = shared.acquire_owned() => turn,
                turn = kept.acquire_owned() => turn,
            },
            (false, false) => shared.acquire_owned().await,
        };
        held.push(shared.ok()?);
        Some(held)
    };
    let held = tokio::time::timeout(state.hashing_wait, turn)
        .await
        .ok()
        .flatten();
    if let (Some(_), Some(place)) = (&held, place) {
        place.checking().checked(place.block(), Instant::now());
    }
    held.ok_or_else(|| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "the server is checking too many sign-ins; try again in 1 s",
        )
        .retry_after(1)
    })
}

pub(super) async fn logout(State(state): State<AppState>, headers: HeaderMap) -> Reply<Response> {
    let token = bearer(&headers)?;
    let ended = crate::answering::SignedOut(token.as_str().into());
    state
        .pool
        .run(move |p| {
            p.actor_for_token(&token)?;
            p.logout(&token)
        })
        .await?;
    let mut response = StatusCode::NO_CONTENT.into_response();
    response.extensions_mut().insert(ended);
    for cookie in crate::browser::ended_cookies() {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    Ok(response)
}

/// A browser's session: the token in the cookie only, where no script reads it; the
/// page learns the role and when the session ends.
fn browser_session(session: &factdesk_api::sign_in::Session, secure: bool) -> Response {
    let mut response = Json(serde_json::json!({
        "role": session.role,
        "expires_at": session.expires_at,
    }))
    .into_response();
    if let Some(cookie) = crate::browser::session_cookie(&session.token, secure) {
        response.headers_mut().insert(header::SET_COOKIE, cookie);
    }
    if let Some(cookie) = crate::browser::device_cookie(&session.device, secure) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}
