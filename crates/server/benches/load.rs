//! Load and fault benches of the team server (not timed tests): many simulated
//! annotators, each a tokio task in this one process, loop next → submit over loopback
//! HTTP; then the project is audited: no task over its overlap, no double answer, every
//! acknowledged answer stored.
//!
//! Load (an in-process server over the project):
//!   cargo bench -p factdesk-server --bench load -- --project P [--clients 200] [--seconds 60]
//! Faults (a `factdesk serve` child SIGKILLed K times under the load and restarted; the
//! clients retry with backoff and record the acks they got):
//!   cargo bench -p factdesk-server --bench load -- --project P --fault 10 --server-bin target/release/factdesk
//!   [--db-restart 'pg_ctlcluster 15 main restart']   (run once, half-way between two kills)
//!
//! `--think-ms M` makes each annotator think before answering, as a person reads an item:
//! an exponential pause of mean M ms between an item's arrival and its answer (0, the
//! default, is the saturation run). `--connections N` sizes the server's pool.
//!
//! `--kind label` has the annotators label claims instead of picking evidence.
//!
//! `--browser` has them work as the browser client does: each opens the page and its
//! script, signs in for a session cookie, and sends every operation to `/api/v1/call`
//! with the page's header, each answer with its key.
//!
//! `--during 'CMD' [--during-after S]` runs the shell command CMD (a lead's `factdesk
//! tasks P …`) S seconds (default 3) into the run, beside the annotators, and checks
//! issue 31's target for the submits that began while it ran: p99 at most 1 s counting
//! every retry, and no 503. The run must outlast the command.
//!
//! P is whatever `factdesk serve` takes: a project file or a `postgres://` URL. Its
//! annotators sign in with the password `NAME-bench-password`; scripts/bench-server
//! makes such a project. The run ends with one PASS or FAIL line per target of issue 16
//! (p95 of next and of submit at most 20 ms under load; no task over its overlap, no
//! double answer, every acknowledged answer stored, no request refused, no 503 without
//! Retry-After). Figures go to docs/performance.md.
// A bench reads best top to bottom: its functions may run past 100 lines.
#![allow(clippy::too_many_lines)]

use factdesk_api::sign_in::SignInPolicy;
use factdesk_api::{Project, SystemClock};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[path = "load/during.rs"]
mod during;
#[path = "load/numbers.rs"]
mod numbers;
#[path = "load/options.rs"]
mod options;
#[path = "load/way.rs"]
mod way;

use numbers::{percentile, think};
use options::{fail, options};

/// What the clients measured.
#[derive(Debug, Default)]
struct Tally {
    next_ms: Vec<f64>,
    submit_ms: Vec<f64>,
    /// Each acknowledged submit: when its first try began (seconds into the run), how
    /// long it took with every retry (ms), and how many 503s it met.
    submits: Vec<(f64, f64, u64)>,
    acks: Vec<String>,
    retries: u64,
    /// 503 answers, and those of them without a Retry-After header.
    unavailable: u64,
    unavailable_without_retry_after: u64,
    /// Requests cut by the transport (the server killed) or past the client's timeout.
    transport_errors: u64,
    /// Final answers other than success and 503, by status.
    refused: std::collections::BTreeMap<u16, u64>,
    exhausted: u64,
}

/// One request with retries: transport failures (the server is down) and 503 wait with
/// doubling backoff and go again until the deadline. `None` past the deadline.
async fn send(
    http: &reqwest::Client,
    build: impl Fn(&reqwest::Client) -> reqwest::RequestBuilder,
    deadline: Instant,
    t: &mut Tally,
) -> Option<(reqwest::StatusCode, serde_json::Value, f64)> {
    let mut wait = Duration::from_millis(25);
    loop {
        if Instant::now() >= deadline {
            return None;
        }
        let started = Instant::now();
        match build(http).send().await {
            Ok(response) if response.status() == reqwest::StatusCode::SERVICE_UNAVAILABLE => {
                t.unavailable += 1;
                if !response
                    .headers()
                    .contains_key(reqwest::header::RETRY_AFTER)
                {
                    t.unavailable_without_retry_after += 1;
                }
            }
            Ok(response) => {
                let status = response.status();
                match response.json::<serde_json::Value>().await {
                    Ok(body) => return Some((status, body, started.elapsed().as_secs_f64() * 1e3)),
                    Err(_) => t.transport_errors += 1,
                }
            }
            Err(_) => t.transport_errors += 1,
        }
        t.retries += 1;
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(Duration::from_millis(800));
    }
}

/// What every annotator of a run shares.
struct Run {
    base: String,
    seconds: u64,
    ready: Arc<tokio::sync::Barrier>,
    think_ms: f64,
    tally: Arc<Mutex<Tally>>,
    /// When the run began, once everyone has signed in.
    origin: std::sync::OnceLock<Instant>,
    kind: String,
    /// Each annotator goes through the browser client's HTTP (`--browser`).
    browser: bool,
    /// This run's part of every answer key.
    nonce: u64,
}

/// An annotator: signs in, waits for everyone to have signed in (a sign-in hashes a
/// password, which is meant to be slow, and is not what this bench measures), then
/// next → submit ("no evidence", so every answer counts and the overlap check is exact)
/// for `seconds`.
async fn annotator(run: Arc<Run>, name: String) {
    let Run {
        base,
        seconds,
        ready,
        think_ms,
        tally,
        origin,
        kind,
        browser,
        nonce,
    } = &*run;
    let (seconds, think_ms) = (*seconds, *think_ms);
    // A request that hangs is cut after 10 s and counted as a transport error.
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap_or_else(|e| fail(e));
    let mut mine = Tally::default();
    let mut seed = name.bytes().fold(0x9e37_79b9_7f4a_7c15u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let login = serde_json::json!({"name": name, "password": format!("{name}-bench-password")});
    let url = |p: &str| format!("{base}{p}");
    let way = if *browser {
        way::Way::Browser(
            way::sign_in_from_the_page(&http, base, &login)
                .await
                .unwrap_or_else(|e| fail(format!("{name} cannot sign in from the page: {e}"))),
        )
    } else {
        match send(
            &http,
            |h| h.post(url("/api/v1/login")).json(&login),
            Instant::now() + Duration::from_secs(600),
            &mut mine,
        )
        .await
        {
            Some((s, body, _)) if s.is_success() => {
                way::Way::App(body["token"].as_str().unwrap_or_default().to_string())
            }
            Some((s, body, _)) => fail(format!("{name} cannot sign in: {s} {body}")),
            None => fail(format!("{name} could not sign in within 10 minutes")),
        }
    };
    let mut answered = 0u64;
    // Sign-in retries are not the run's.
    mine = Tally::default();
    ready.wait().await;
    let deadline = Instant::now() + Duration::from_secs(seconds);
    // People do not all ask for work in the same millisecond: with a think time, each
    // client's first request comes after a pause drawn like every later one, so the run
    // measures the steady state, not 200 requests queued at its first instant.
    if think_ms > 0.0 {
        tokio::time::sleep(think(&mut seed, think_ms)).await;
    }
    loop {
        let Some((status, next, ms)) =
            send(&http, |h| way.next(h, base, kind), deadline, &mut mine).await
        else {
            break;
        };
        if !status.is_success() {
            *mine.refused.entry(status.as_u16()).or_default() += 1;
            continue;
        }
        mine.next_ms.push(ms);
        let Some(task_id) = next["item"]["task_id"].as_i64() else {
            mine.exhausted += 1;
            break;
        };
        let pause = think(&mut seed, think_ms);
        if Instant::now() + pause >= deadline {
            break;
        }
        tokio::time::sleep(pause).await;
        let answer = if kind == "label" {
            serde_json::json!({"task_id": task_id, "label": "NOT ENOUGH INFO"})
        } else {
            serde_json::json!({"task_id": task_id, "no_evidence": true})
        };
        let (began, unavailable) = (Instant::now(), mine.unavailable);
        answered += 1;
        // Unique across runs on one project too, as a browser's random keys are: a key
        // an earlier run stored is another answer's (409).
        let key = format!("{nonce:016x}-{seed:016x}-{answered:08x}");
        let Some((status, ack, ms)) = send(
            &http,
            |h| way.submit(h, base, &answer, &key),
            deadline,
            &mut mine,
        )
        .await
        else {
            break;
        };
        if !status.is_success() {
            *mine.refused.entry(status.as_u16()).or_default() += 1;
            continue;
        }
        mine.submit_ms.push(ms);
        let at = origin
            .get()
            .map_or(0.0, |o| began.duration_since(*o).as_secs_f64());
        mine.submits.push((
            at,
            began.elapsed().as_secs_f64() * 1e3,
            mine.unavailable - unavailable,
        ));
        mine.acks
            .push(ack["ack"].as_str().unwrap_or_default().to_string());
    }
    if let Ok(mut all) = tally.lock() {
        all.next_ms.extend(mine.next_ms);
        all.submit_ms.extend(mine.submit_ms);
        all.submits.extend(mine.submits);
        all.acks.extend(mine.acks);
        all.retries += mine.retries;
        all.unavailable += mine.unavailable;
        all.unavailable_without_retry_after += mine.unavailable_without_retry_after;
        all.transport_errors += mine.transport_errors;
        for (status, n) in mine.refused {
            *all.refused.entry(status).or_default() += n;
        }
        all.exhausted += mine.exhausted;
    }
}

fn open(project: &str) -> Project {
    Project::open(Path::new(project), Box::new(SystemClock)).unwrap_or_else(|e| fail(e))
}

fn annotators(project: &str, clients: usize) -> Vec<String> {
    let people = open(project).people().unwrap_or_else(|e| fail(e));
    let names: Vec<String> = people
        .into_iter()
        .filter(|p| p.role == factdesk_api::annotators::Role::Annotator)
        .map(|p| p.name)
        .take(clients)
        .collect();
    if names.len() < clients {
        fail(format!(
            "the project has {} annotators; {clients} clients need as many",
            names.len()
        ));
    }
    names
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| fail(e))
}

/// A `factdesk serve` child on `port`, once it accepts connections.
async fn start_child(
    bin: &Path,
    project: &str,
    port: u16,
    connections: usize,
) -> std::process::Child {
    let mut child = std::process::Command::new(bin)
        .args(["serve", project, "--listen", &format!("127.0.0.1:{port}")])
        .args(["--connections", &connections.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| fail(format!("cannot run {}: {e}", bin.display())));
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return child;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let _ = child.kill();
    let _ = child.wait();
    fail("the server did not start listening within 10 s")
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_string())
}

/// The project's own audit after the run, on a thread that may block (PostgreSQL's client
/// does).
fn audit(project: &str, acks: &[String]) -> (factdesk_api::audit::ServingAudit, usize) {
    let project = open(project);
    let lead = project
        .lead_or_owner(None)
        .and_then(|actor| project.as_lead(&actor, "audit the run"))
        .unwrap_or_else(|e| fail(e));
    let audit = project.serving_audit(&lead).unwrap_or_else(|e| fail(e));
    let missing = project
        .missing_answers(&lead, acks)
        .unwrap_or_else(|e| fail(e));
    (audit, missing.len())
}

/// Runs a shell command (the database's restart) while the clients keep going, and says
/// when and how long it took.
async fn run_restart(command: &str, started: Instant) {
    let at = started.elapsed().as_secs_f64();
    let begun = Instant::now();
    let owned = command.to_string();
    let status = tokio::task::spawn_blocking(move || {
        std::process::Command::new("sh")
            .args(["-c", &owned])
            .status()
    })
    .await
    .unwrap_or_else(|e| fail(e))
    .unwrap_or_else(|e| fail(format!("cannot run {command:?}: {e}")));
    println!(
        "database restarted {at:.1} s into the run with {command:?} ({status}), in {:.1} s",
        begun.elapsed().as_secs_f64()
    );
}

fn verdict(pass: bool, target: &str, measured: String) -> bool {
    println!(
        "{} {target}: {measured}",
        if pass { "PASS" } else { "FAIL" }
    );
    pass
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let o = options();
    let names = {
        let (project, clients) = (o.project.clone(), o.clients);
        tokio::task::spawn_blocking(move || annotators(&project, clients))
            .await
            .unwrap_or_else(|e| fail(e))
    };
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    println!(
        "{} clients for {} s on {} ({} connections, think time {} ms{}{}); load average at start {}",
        o.clients,
        o.seconds,
        factdesk_api::ProjectLocation::parse(Path::new(&o.project)).shown(),
        o.connections,
        o.think_ms,
        if o.fault > 0 {
            format!(", {} SIGKILLs", o.fault)
        } else {
            String::new()
        },
        match &o.db_restart {
            Some(c) => format!(", database restart {c:?}"),
            None => String::new(),
        },
        load_average()
    );
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let mut child = None;
    if let Some(bin) = &o.server_bin {
        child = Some(start_child(bin, &o.project, port, o.connections).await);
    } else {
        let project = PathBuf::from(&o.project);
        let open = factdesk_server::opener(project, || Box::new(SystemClock));
        let state = factdesk_server::AppState::new(
            open,
            o.connections,
            SignInPolicy::default(),
            factdesk_server::DEFAULT_BODY_LIMIT,
        );
        let listener = std::net::TcpListener::bind(("127.0.0.1", port)).unwrap_or_else(|e| fail(e));
        tokio::spawn(factdesk_server::serve_on(
            listener,
            state,
            None,
            async move {
                let _ = stopped.await;
            },
        ));
    }
    let tally = Arc::new(Mutex::new(Tally::default()));
    let ready = Arc::new(tokio::sync::Barrier::new(names.len() + 1));
    let run = Arc::new(Run {
        base: base.clone(),
        seconds: o.seconds,
        ready: ready.clone(),
        think_ms: o.think_ms,
        tally: tally.clone(),
        origin: std::sync::OnceLock::new(),
        kind: o.kind.clone(),
        browser: o.browser,
        nonce: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64),
    });
    let clients: Vec<_> = names
        .into_iter()
        .map(|name| tokio::spawn(annotator(run.clone(), name)))
        .collect();
    let signing_in = Instant::now();
    ready.wait().await;
    println!(
        "all signed in after {:.1} s; the run starts now (load average {})",
        signing_in.elapsed().as_secs_f64(),
        load_average()
    );
    let started = Instant::now();
    let _ = run.origin.set(started);
    let during = o.during.clone().map(|command| {
        let after = Duration::from_secs_f64(o.during_after);
        tokio::spawn(during::run(command, after, started))
    });
    let mut kills = 0;
    let mut restarted = false;
    if let (Some(bin), Some(c)) = (&o.server_bin, child.as_mut()) {
        let every = Duration::from_secs(o.seconds) / (o.fault as u32 + 1);
        for k in 0..o.fault {
            if k == o.fault / 2 {
                if let Some(command) = &o.db_restart {
                    // Half-way between two kills, so the restart meets a running server.
                    tokio::time::sleep(every / 2).await;
                    run_restart(command, started).await;
                    restarted = true;
                    tokio::time::sleep(every / 2).await;
                } else {
                    tokio::time::sleep(every).await;
                }
            } else {
                tokio::time::sleep(every).await;
            }
            // Child::kill is SIGKILL: no graceful shutdown, whatever was in flight is cut.
            let _ = c.kill();
            let _ = c.wait();
            kills += 1;
            *c = start_child(bin, &o.project, port, o.connections).await;
        }
    }
    for client in clients {
        let _ = client.await;
    }
    let elapsed = started.elapsed().as_secs_f64();
    if let Some(mut c) = child {
        let _ = c.kill();
        let _ = c.wait();
    }
    let _ = stop.send(());
    let lead = match during {
        Some(handle) => Some(handle.await.unwrap_or_else(|e| fail(e))),
        None => None,
    };
    let mut t = std::mem::take(&mut *tally.lock().unwrap_or_else(|e| e.into_inner()));
    t.next_ms.sort_by(f64::total_cmp);
    t.submit_ms.sort_by(f64::total_cmp);
    let (next_p95, submit_p95) = (percentile(&t.next_ms, 0.95), percentile(&t.submit_ms, 0.95));
    println!(
        "next: {} calls, p50 {:.2} ms, p95 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        t.next_ms.len(),
        percentile(&t.next_ms, 0.50),
        next_p95,
        percentile(&t.next_ms, 0.99),
        t.next_ms.last().copied().unwrap_or(f64::NAN)
    );
    println!(
        "submit: {} acks, p50 {:.2} ms, p95 {:.2} ms, p99 {:.2} ms, max {:.2} ms; {:.0} answers/s over {:.1} s",
        t.submit_ms.len(),
        percentile(&t.submit_ms, 0.50),
        submit_p95,
        percentile(&t.submit_ms, 0.99),
        t.submit_ms.last().copied().unwrap_or(f64::NAN),
        t.submit_ms.len() as f64 / elapsed,
        elapsed
    );
    let refused: u64 = t.refused.values().sum();
    println!(
        "retries {} ({} answers 503, {} of them without Retry-After; {} transport errors), refused {} {:?}, clients out of work {}, server kills {kills}, database restarted {restarted}; load average at end {}",
        t.retries,
        t.unavailable,
        t.unavailable_without_retry_after,
        t.transport_errors,
        refused,
        t.refused,
        t.exhausted,
        load_average()
    );
    let (audit, missing) = {
        let (project, acks) = (o.project.clone(), std::mem::take(&mut t.acks));
        let n = acks.len();
        let (a, m) = tokio::task::spawn_blocking(move || audit(&project, &acks))
            .await
            .unwrap_or_else(|e| fail(e));
        println!(
            "audit: {} tasks over overlap, {} double answers, {m} of {n} acknowledged answers missing ({} answers superseded a retried one)",
            a.tasks_over_overlap, a.double_answers, a.superseding_answers
        );
        (a, m)
    };
    let mut pass = true;
    if let Some(lead) = &lead {
        pass &= during::verdicts(lead, &t.submits, elapsed);
    } else if o.fault == 0 {
        pass &= verdict(
            next_p95 <= 20.0,
            "next p95 <= 20 ms",
            format!("{next_p95:.2} ms"),
        );
        pass &= verdict(
            submit_p95 <= 20.0,
            "submit p95 <= 20 ms",
            format!("{submit_p95:.2} ms"),
        );
    }
    pass &= verdict(
        audit.tasks_over_overlap == 0,
        "0 tasks over overlap",
        audit.tasks_over_overlap.to_string(),
    );
    pass &= verdict(
        audit.double_answers == 0,
        "0 double answers",
        audit.double_answers.to_string(),
    );
    pass &= verdict(
        missing == 0,
        "every acknowledged answer stored",
        format!("{missing} missing"),
    );
    pass &= verdict(
        refused == 0,
        "no request refused (only 503s, retried)",
        format!("{refused} refused {:?}", t.refused),
    );
    pass &= verdict(
        t.unavailable_without_retry_after == 0,
        "every 503 carries Retry-After",
        format!("{} without", t.unavailable_without_retry_after),
    );
    if o.fault > 0 {
        pass &= verdict(
            kills == o.fault,
            "server SIGKILLed as asked",
            format!("{kills} of {}", o.fault),
        );
    }
    if o.db_restart.is_some() {
        pass &= verdict(restarted, "database restarted once", restarted.to_string());
    }
    if !pass {
        std::process::exit(1);
    }
}
