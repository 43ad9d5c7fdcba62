//! The live dashboard of a team server: one thread follows the server's events
//! (`GET /api/v1/events`, a tick per committed answer, from everyone), another asks the
//! server for the dashboard after each tick and sends it to the window. Ticks that come
//! while a refresh runs are folded into the next one. Bootstrap intervals are asked for
//! separately, one request at a time and no more than a third of the time, and are laid
//! over the newer snapshots until fresh ones arrive (as on a file).

use super::{emit_error, emit_link, emit_snapshot, end, resend_asked, start, wanted, POLL, RESEND};
use crate::remote::{Heard, Remote};
use factdesk_api::call::Call;
use factdesk_api::dashboard::Dashboard;
use factdesk_api::{Error, ErrorCode, Result};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use tauri::AppHandle;

/// How long to wait before following the events again after the stream broke (the
/// server restarted, the network dropped).
const RECONNECT: Duration = Duration::from_secs(1);
/// The shortest time between two refreshes, so a burst of answers costs one.
const MIN_GAP: Duration = Duration::from_millis(100);

/// Follows the dashboard on `remote`, starting from `first` (already fetched, which also
/// proved the person a lead).
pub fn watch_server(app: &AppHandle, remote: Remote, first: Dashboard) {
    let key = format!("{}#{}", remote.url, remote.person.name);
    // The server's events wake this follower, not the file's channel.
    start(app, key, move |app, generation, _| {
        follow(app, &remote, first, generation)
    });
}

/// The snapshot `latest` with the intervals (and studies) of `full`, an earlier or equal
/// complete dashboard.
pub fn with_intervals(latest: &Dashboard, full: Option<&Dashboard>) -> Dashboard {
    let mut out = latest.clone();
    if let Some(full) = full {
        out.lay_intervals_from(full);
    }
    out
}

/// What a failure of the event stream or of a refresh means for the follower.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Failure {
    /// The server refused this person the dashboard: their session ended, or they are no
    /// longer a lead. Asking again cannot change that, so the follower stops and the
    /// window is told once.
    Final,
    /// The server is out of reach: the link is down while it is followed again.
    LinkDown,
    /// Anything else: the window is told, and the server followed again.
    Passing,
}

impl Failure {
    fn of(code: ErrorCode) -> Failure {
        match code {
            ErrorCode::Unauthorized | ErrorCode::Forbidden => Failure::Final,
            ErrorCode::Unavailable => Failure::LinkDown,
            _ => Failure::Passing,
        }
    }
}

/// What the events' thread tells the refresher: `Ok` on each answer (and once the stream
/// is back), the server's refusal when the stream was refused for good.
type Tick = Result<()>;

/// Ticks on each answer committed on the server until the watcher is no longer wanted.
/// A broken or silent stream (the server's heartbeats stopped) says "reconnecting" on the
/// dashboard and is followed again; once it is back, the dashboard is asked for at once,
/// since answers may have come while it was down. A refusal for good ends it, passed on
/// to the refresher.
fn events(app: &AppHandle, remote: &Remote, generation: u64, ticks: &mpsc::Sender<Tick>) {
    let mut broken = false;
    loop {
        let followed = remote.follow(|heard| {
            match heard {
                Heard::Ready if broken => {
                    broken = false;
                    emit_link(app, None);
                    let _ = ticks.send(Ok(()));
                }
                Heard::Answer => {
                    let _ = ticks.send(Ok(()));
                }
                Heard::Ready | Heard::Other => {}
            }
            wanted(app, generation)
        });
        if !wanted(app, generation) {
            return;
        }
        if let Err(e) = followed {
            match Failure::of(e.code) {
                Failure::Final => {
                    let _ = ticks.send(Err(e));
                    return;
                }
                Failure::LinkDown => {
                    broken = true;
                    emit_link(app, Some(e));
                }
                Failure::Passing => emit_error(app, e),
            }
        }
        std::thread::sleep(RECONNECT);
    }
}

/// Whether ticks came within [`POLL`] (all of them taken), or the stream's refusal.
fn heard(ticks: &mpsc::Receiver<Tick>) -> Result<bool> {
    let Ok(first) = ticks.recv_timeout(POLL) else {
        return Ok(false);
    };
    first?;
    while let Ok(tick) = ticks.try_recv() {
        tick?;
    }
    Ok(true)
}

/// A refresh that failed: out of reach is the link's state, anything else an error the
/// window acts on. False when the follower stops: the server refused for good.
fn refresh_failed(app: &AppHandle, generation: u64, e: Error) -> bool {
    match Failure::of(e.code) {
        Failure::Final => {
            give_up(app, generation, e);
            return false;
        }
        Failure::LinkDown => emit_link(app, Some(e)),
        Failure::Passing => emit_error(app, e),
    }
    true
}

/// Stops the watcher of `generation` for good, telling the window why, once; the link is
/// no longer followed, so it shows no "reconnecting" either.
fn give_up(app: &AppHandle, generation: u64, e: Error) {
    if !wanted(app, generation) {
        return;
    }
    end(app, generation);
    emit_link(app, None);
    emit_error(app, e);
}

type Computed = (Result<Dashboard>, Duration);

fn follow(app: &AppHandle, remote: &Remote, first: Dashboard, generation: u64) {
    let (tick, ticks) = mpsc::channel::<Tick>();
    {
        let (app, remote) = (app.clone(), remote.clone());
        std::thread::spawn(move || events(&app, &remote, generation, &tick));
    }
    let (send, receive) = mpsc::channel::<Computed>();
    let mut latest = first;
    let mut full: Option<Dashboard> = None;
    let mut computing = false;
    let mut next_intervals = Instant::now();
    let mut changed = true;
    let mut sent = Instant::now();
    while wanted(app, generation) {
        let mut dirty = match heard(&ticks) {
            Ok(dirty) => dirty,
            Err(e) => return give_up(app, generation, e),
        };
        // Paces are the last half hour's: fetched again now and then so they age.
        dirty |= sent.elapsed() >= RESEND;
        if dirty {
            match remote.call(&Call::Dashboard { intervals: false }) {
                Ok(snapshot) => {
                    latest = snapshot;
                    changed = true;
                }
                Err(e) => {
                    // Nothing new to show: the last snapshot stays as it was, and the
                    // next try waits for the stream to be back or the resend interval.
                    dirty = false;
                    sent = Instant::now();
                    if !refresh_failed(app, generation, e) {
                        return;
                    }
                }
            }
        }
        while let Ok((result, took)) = receive.try_recv() {
            computing = false;
            next_intervals = Instant::now() + took * 2;
            match result {
                Ok(dashboard) => {
                    full = Some(dashboard);
                    changed = true;
                }
                Err(e) => tracing::warn!("dashboard intervals: {e}"),
            }
        }
        if changed || resend_asked(app) || dirty {
            emit_snapshot(app, with_intervals(&latest, full.as_ref()));
            changed = false;
            sent = Instant::now();
        }
        let as_of = full.as_ref().and_then(|f| f.intervals_as_of);
        let stale = as_of != Some(latest.last_annotation_id);
        if stale && !computing && Instant::now() >= next_intervals {
            computing = true;
            let (remote, send) = (remote.clone(), send.clone());
            std::thread::spawn(move || {
                let started = Instant::now();
                let result = remote.call(&Call::Dashboard { intervals: true });
                // The watcher may have ended; then nobody needs these.
                let _ = send.send((result, started.elapsed()));
            });
        }
        if dirty {
            std::thread::sleep(MIN_GAP);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dashboard(value: serde_json::Value) -> Dashboard {
        serde_json::from_value(value).unwrap_or_else(|e| panic!("not a dashboard: {e}"))
    }

    fn statistic(value: f64, ci95: Option<[f64; 2]>) -> serde_json::Value {
        json!({"metric": "fleiss_kappa", "value": value, "reason": null, "ci95": ci95, "reading": null})
    }

    fn kind(fleiss: serde_json::Value, alpha: serde_json::Value) -> serde_json::Value {
        json!({
            "kind": "label", "units": 3, "paired": 3, "annotators": 2, "answers": 6,
            "fleiss": fleiss, "alpha": alpha, "masi": null,
            "pairs_metric": "cohen_kappa", "pairs_unit": "item", "pairs": [], "people": [], "series": []
        })
    }

    #[test]
    fn a_refusal_ends_the_following_and_only_out_of_reach_is_the_links() {
        // 401: the session ended; 403: no longer a lead (the server's events route).
        for code in [ErrorCode::Unauthorized, ErrorCode::Forbidden] {
            assert_eq!(Failure::of(code), Failure::Final, "{code:?}");
        }
        assert_eq!(Failure::of(ErrorCode::Unavailable), Failure::LinkDown);
        for code in [ErrorCode::Io, ErrorCode::RateLimited, ErrorCode::NotFound] {
            assert_eq!(Failure::of(code), Failure::Passing, "{code:?}");
        }
    }

    #[test]
    fn ticks_are_taken_together_and_a_refusal_among_them_ends_the_refresher() {
        let (tick, ticks) = mpsc::channel::<Tick>();
        assert!(matches!(heard(&ticks), Ok(false)));
        for _ in 0..3 {
            let _ = tick.send(Ok(()));
        }
        assert!(matches!(heard(&ticks), Ok(true)));
        assert!(matches!(heard(&ticks), Ok(false)), "all three were taken");
        let _ = tick.send(Ok(()));
        let _ = tick.send(Err(Error::new(ErrorCode::Forbidden, "not a lead")));
        let refused = heard(&ticks).err().map(|e| e.code);
        assert_eq!(refused, Some(ErrorCode::Forbidden));
        // The events' thread gone: nothing more comes, and nothing fails.
        drop(tick);
        assert!(matches!(heard(&ticks), Ok(false)));
    }

    #[test]
    fn intervals_of_an_earlier_dashboard_lie_over_the_newer_figures() {
        let latest = dashboard(json!({
            "last_annotation_id": 9, "intervals_as_of": null, "studies": [],
            "kinds": [kind(statistic(0.5, None), statistic(0.4, None))]
        }));
        let full = dashboard(json!({
            "last_annotation_id": 7, "intervals_as_of": 7, "studies": [],
            "kinds": [kind(statistic(0.45, Some([0.1, 0.8])), statistic(0.3, Some([0.0, 0.7])))]
        }));
        let out = with_intervals(&latest, Some(&full));
        assert_eq!(out.last_annotation_id, 9);
        assert_eq!(out.intervals_as_of, Some(7));
        assert_eq!(out.kinds[0].fleiss.value, Some(0.5));
        assert_eq!(out.kinds[0].fleiss.ci95, Some((0.1, 0.8)));
        assert_eq!(out.kinds[0].alpha.ci95, Some((0.0, 0.7)));
        assert!(out.kinds[0].masi.is_none());
        assert_eq!(with_intervals(&latest, None), latest);
    }

    #[test]
    fn a_dashboard_round_trips_through_the_servers_json() {
        let d = dashboard(json!({
            "last_annotation_id": 1, "intervals_as_of": 1, "studies": [],
            "kinds": [kind(statistic(0.5, Some([0.1, 0.9])), statistic(0.4, None))]
        }));
        let again: Dashboard = serde_json::from_value(serde_json::to_value(&d).unwrap_or_default())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(again, d);
    }
}
