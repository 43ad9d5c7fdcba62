//! The server's live events (`GET /api/v1/events`) followed line by line, with a read
//! timeout: the server sends a heartbeat every few seconds, so a stream silent for longer
//! is dead (a network gone without a word) and ends with an `unavailable` error.

use super::{read_body, refused, transport};
use factdesk_api::{Error, ErrorCode, Result};
use std::io::{BufRead, BufReader};
use std::time::Duration;

/// How long the live events may stay silent before the stream counts as dead: two and a
/// half of the server's heartbeats (every 4 s), so a network that died without a word
/// (a laptop's Wi-Fi gone, a stopped server) is noticed and followed again.
pub(super) const SILENCE: Duration = Duration::from_secs(10);

/// What a line of the server's live events said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heard {
    /// The stream is open: the server follows answers for this client from now on.
    Ready,
    /// An answer was committed.
    Answer,
    /// Anything else: a heartbeat, a data line, a blank line.
    Other,
}

/// Follows `GET /api/v1/events` on `url`; a read that waits longer than `silence` ends it
/// with an `unavailable` error.
pub(super) fn follow_events(
    url: &str,
    token: &str,
    silence: Duration,
    mut tick: impl FnMut(Heard) -> bool,
) -> Result<()> {
    // No overall timeout: the stream stays open for as long as the dashboard does.
    let response = super::agent_with(None, Some(silence))
        .get(format!("{url}/api/v1/events"))
        .header("authorization", format!("Bearer {token}"))
        .call()
        .map_err(|e| quiet(url, silence, e))?;
    let status = response.status().as_u16();
    if status != 200 {
        // Refused: 403 to anyone but a lead, 401 once the session ended.
        let (_, body) = read_body(url, response)?;
        return Err(refused(url, status, &body));
    }
    let reader = BufReader::new(response.into_body().into_reader());
    for line in reader.lines() {
        let line = line.map_err(|e| quiet(url, silence, ureq::Error::Io(e)))?;
        // Every line counts, heartbeats too: they let a stopped dashboard notice within
        // the server's heartbeat interval.
        let heard = match line.trim_end() {
            "event: ready" => Heard::Ready,
            "event: answer" => Heard::Answer,
            _ => Heard::Other,
        };
        if !tick(heard) {
            return Ok(());
        }
    }
    Err(Error::new(
        ErrorCode::Unavailable,
        format!("the server at {url} closed the live events"),
    ))
}

/// A failure while following events: silence past `silence` said as such.
fn quiet(url: &str, silence: Duration, e: ureq::Error) -> Error {
    let timed_out = match &e {
        ureq::Error::Timeout(_) => true,
        ureq::Error::Io(io) => {
            matches!(
                io.kind(),
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
            ) || io
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<ureq::Error>())
                .is_some_and(|inner| matches!(inner, ureq::Error::Timeout(_)))
        }
        _ => false,
    };
    if timed_out {
        return Error::new(
            ErrorCode::Unavailable,
            format!(
                "no word from {url} for {} s: the network or the server is down",
                silence.as_secs_f32()
            ),
        );
    }
    transport(url, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server on a loopback port that answers the events route's headers and a ready
    /// event, then sends `beat` every `every` (or nothing when `every` is None) while the
    /// connection lasts.
    fn fake_events(every: Option<Duration>, beat: &'static [u8]) -> String {
        use std::io::Write;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(1);
        std::thread::spawn(move || {
            let Ok((mut stream, _)) = listener.accept() else {
                return;
            };
            let mut request = [0u8; 4096];
            let _ = std::io::Read::read(&mut stream, &mut request);
            let head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\nevent: ready\ndata: {}\n\n";
            if stream.write_all(head).is_err() {
                return;
            }
            loop {
                match every {
                    Some(every) => {
                        std::thread::sleep(every);
                        if stream.write_all(beat).is_err() {
                            return;
                        }
                    }
                    // Silent, the connection open: a network that died without a word.
                    None => std::thread::sleep(Duration::from_secs(60)),
                }
            }
        });
        format!("http://127.0.0.1:{port}")
    }

    #[test]
    fn a_refused_stream_ends_at_once_with_the_servers_refusal() {
        use crate::remote::fake::answering;
        let forbidden = r#"{"code":"forbidden","message":"ana is not a lead"}"#;
        let unauthorized = r#"{"code":"unauthorized","message":"unknown token"}"#;
        for (status, body, code, said) in [
            (403, forbidden, ErrorCode::Forbidden, "ana is not a lead"),
            (401, unauthorized, ErrorCode::Unauthorized, "sign in again"),
        ] {
            let mut ticks = 0;
            let ended = follow_events(&answering(status, body), "t", SILENCE, |_| {
                ticks += 1;
                true
            });
            let e = ended
                .err()
                .unwrap_or_else(|| panic!("{status} was followed"));
            assert_eq!(e.code, code);
            assert!(e.message.contains(said), "{}", e.message);
            assert_eq!(ticks, 0);
        }
    }

    #[test]
    fn a_silent_event_stream_ends_after_the_silence_allowed() {
        let url = fake_events(None, b"");
        let silence = Duration::from_millis(300);
        let started = std::time::Instant::now();
        let mut heard = Vec::new();
        let ended = follow_events(&url, "t", silence, |h| {
            heard.push(h);
            true
        });
        let took = started.elapsed();
        let e = ended
            .err()
            .unwrap_or_else(|| panic!("a silent stream must end"));
        assert_eq!(e.code, ErrorCode::Unavailable);
        assert!(e.message.contains("no word from"), "{}", e.message);
        assert_eq!(heard.first(), Some(&Heard::Ready));
        // Never before the silence allowed; the upper bound only tells "ended because of
        // the silence" from "never ended" (the fake stays silent for good), with room for
        // a machine too busy to run the test's threads for seconds.
        assert!(
            took >= silence && took < silence + Duration::from_secs(30),
            "ended after {took:?}"
        );
    }

    #[test]
    fn heartbeats_keep_the_event_stream_alive() {
        // Beats every 100 ms against 2.5 s of silence allowed: only a stall of the test's
        // threads longer than 2.4 s could end the stream, where a margin of 300 ms did
        // on a busy machine.
        let url = fake_events(Some(Duration::from_millis(100)), b": heartbeat\n\n");
        let silence = Duration::from_millis(2_500);
        let started = std::time::Instant::now();
        let mut beats = 0;
        // Twice the silence allowed, and twenty beats at least, kept alive by the beats
        // alone: without them the stream would have ended after `silence`.
        let followed = follow_events(&url, "t", silence, |h| {
            if h == Heard::Other {
                beats += 1;
            }
            started.elapsed() < silence * 2 || beats < 20
        });
        assert!(followed.is_ok(), "{followed:?}");
        assert!(started.elapsed() >= silence * 2, "{:?}", started.elapsed());
        assert!(beats >= 20, "{beats} lines of heartbeats");
    }
}
