//! The live dashboard of a team server: one thread follows the server's events
//! (`GET /api/v1/events`, a tick per committed answer, from everyone), another asks the
//! server for the dashboard after each tick and sends it to the window. Ticks that come
//! while a refresh runs are folded into the next one. Bootstrap intervals are asked for
//! separately, one request at a time and no more than a third of the time, and are laid
//! over the newer snapshots until fresh ones arrive (as on a file).

use super::{emit_error, emit_link, emit_snapshot, resend_asked, start, wanted, POLL, RESEND};
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

/// Ticks on each answer committed on the server until the watcher is no longer wanted.
/// A broken or silent stream (the server's heartbeats stopped) says "reconnecting" on the
/// dashboard and is followed again; once it is back, the dashboard is asked for at once,
/// since answers may have come while it was down.
fn events(app: &AppHandle, remote: &Remote, generation: u64, ticks: &mpsc::Sender<()>) {
    let mut broken = false;
    loop {
        let followed = remote.follow(|heard| {
            match heard {
                Heard::Ready if broken => {
                    broken = false;
                    emit_link(app, None);
                    let _ = ticks.send(());
                }
                Heard::Answer => {
                    let _ = ticks.send(());
                }
                Heard::Ready | Heard::Other => {}
            }
            wanted(app, generation)
        });
        if !wanted(app, generation) {
            return;
        }
        if let Err(e) = followed {
            if e.code == ErrorCode::Unavailable {
                broken = true;
                emit_link(app, Some(e));
            } else {
                emit_error(app, e);
            }
        }
        std::thread::sleep(RECONNECT);
    }
}

/// A refresh that failed: out of reach is the link's state, anything else (the session
/// ended) an error the window acts on.
fn refresh_failed(app: &AppHandle, e: Error) {
    if e.code == ErrorCode::Unavailable {
        emit_link(app, Some(e));
    } else {
        emit_error(app, e);
    }
}

type Computed = (Result<Dashboard>, Duration);

fn follow(app: &AppHandle, remote: &Remote, first: Dashboard, generation: u64) {
    let (tick, ticks) = mpsc::channel::<()>();
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
        let mut dirty = match ticks.recv_timeout(POLL) {
            Ok(()) => {
                while ticks.try_recv().is_ok() {}
                true
            }
            Err(_) => false,
        };
        // Paces are the last half hour's: fetched again now and then so they age.
        dirty |= sent.elapsed() >= RESEND;
        if dirty {
            match remote.call_as(&Call::Dashboard { intervals: false }) {
                Ok(snapshot) => {
                    latest = snapshot;
                    changed = true;
                }
                Err(e) => {
                    // Nothing new to show: the last snapshot stays as it was, and the
                    // next try waits for the stream to be back or the resend interval.
                    dirty = false;
                    sent = Instant::now();
                    refresh_failed(app, e);
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
                let result = remote.call_as(&Call::Dashboard { intervals: true });
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
