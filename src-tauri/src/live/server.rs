//! The live dashboard of a team server: one thread follows the server's events
//! (`GET /api/v1/events`, a tick per committed answer, from everyone), another asks the
//! server for the dashboard after each tick and sends it to the window. Ticks that come
//! while a refresh runs are folded into the next one. Bootstrap intervals are asked for
//! separately, one request at a time and no more than a third of the time, and are laid
//! over the newer snapshots until fresh ones arrive (as on a file).

use super::{emit_error, emit_link, emit_snapshot, resend_asked, start, wanted, POLL, RESEND};
use crate::remote::{Heard, Remote};
use factdesk_api::call::Call;
use factdesk_api::{Error, ErrorCode, Result};
use serde_json::Value;
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
pub fn watch_server(app: &AppHandle, remote: Remote, first: Value) {
    let key = format!("{}#{}", remote.url, remote.person.name);
    // The server's events wake this follower, not the file's channel.
    start(app, key, move |app, generation, _| {
        follow(app, &remote, first, generation)
    });
}

/// The snapshot `latest` with the intervals (and studies) of `full`, an earlier or equal
/// complete dashboard.
pub fn with_intervals(latest: &Value, full: Option<&Value>) -> Value {
    let mut out = latest.clone();
    let Some(full) = full else {
        return out;
    };
    if let Some(map) = out.as_object_mut() {
        map.insert("intervals_as_of".into(), full["intervals_as_of"].clone());
        map.insert("studies".into(), full["studies"].clone());
    }
    let full_kinds = full["kinds"].as_array().cloned().unwrap_or_default();
    if let Some(kinds) = out.get_mut("kinds").and_then(Value::as_array_mut) {
        for kind in kinds {
            let Some(done) = full_kinds.iter().find(|f| f["kind"] == kind["kind"]) else {
                continue;
            };
            for stat in ["fleiss", "alpha", "masi"] {
                if let Some(target) = kind.get_mut(stat).and_then(Value::as_object_mut) {
                    target.insert("ci95".into(), done[stat]["ci95"].clone());
                }
            }
        }
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

type Computed = (Result<Value>, Duration);

fn follow(app: &AppHandle, remote: &Remote, first: Value, generation: u64) {
    let (tick, ticks) = mpsc::channel::<()>();
    {
        let (app, remote) = (app.clone(), remote.clone());
        std::thread::spawn(move || events(&app, &remote, generation, &tick));
    }
    let (send, receive) = mpsc::channel::<Computed>();
    let mut latest = first;
    let mut full: Option<Value> = None;
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
        let as_of = full.as_ref().map(|f| f["intervals_as_of"].clone());
        let stale = as_of.as_ref() != Some(&latest["last_annotation_id"]);
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

    #[test]
    fn intervals_of_an_earlier_dashboard_lie_over_the_newer_figures() {
        let latest = json!({
            "last_annotation_id": 9, "intervals_as_of": null, "studies": [],
            "kinds": [{"kind": "label", "fleiss": {"value": 0.5, "ci95": null}, "alpha": {"value": 0.4, "ci95": null}, "masi": null}]
        });
        let full = json!({
            "last_annotation_id": 7, "intervals_as_of": 7, "studies": [{"id": 1}],
            "kinds": [{"kind": "label", "fleiss": {"value": 0.45, "ci95": [0.1, 0.8]}, "alpha": {"value": 0.3, "ci95": [0.0, 0.7]}, "masi": null}]
        });
        let out = with_intervals(&latest, Some(&full));
        assert_eq!(out["last_annotation_id"], 9);
        assert_eq!(out["intervals_as_of"], 7);
        assert_eq!(
            out["kinds"][0]["fleiss"],
            json!({"value": 0.5, "ci95": [0.1, 0.8]})
        );
        assert_eq!(out["kinds"][0]["alpha"]["ci95"], json!([0.0, 0.7]));
        assert!(out["kinds"][0]["masi"].is_null());
        assert_eq!(out["studies"], json!([{"id": 1}]));
        assert_eq!(with_intervals(&latest, None), latest);
    }
}
