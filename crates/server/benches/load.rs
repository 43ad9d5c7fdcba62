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
//!
//! P is whatever `factdesk serve` takes (a project file; a PostgreSQL URL once that store
//! lands). Its annotators sign in with the password `NAME-bench-password`;
//! scripts/bench-server makes such a project. Figures go to docs/performance.md.

use factdesk_api::sign_in::SignInPolicy;
use factdesk_api::{Project, SystemClock};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn fail(message: impl std::fmt::Display) -> ! {
    eprintln!("error: {message}");
    std::process::exit(2)
}

#[derive(Debug)]
struct Options {
    project: String,
    clients: usize,
    seconds: u64,
    connections: usize,
    fault: usize,
    server_bin: Option<PathBuf>,
}

fn options() -> Options {
    let mut o = Options {
        project: String::new(),
        clients: 200,
        seconds: 60,
        connections: 8,
        fault: 0,
        server_bin: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| fail(format!("{arg} needs a value")))
        };
        match arg.as_str() {
            "--bench" => {}
            "--project" => o.project = value(),
            "--clients" => o.clients = value().parse().unwrap_or_else(|e| fail(e)),
            "--seconds" => o.seconds = value().parse().unwrap_or_else(|e| fail(e)),
            "--connections" => o.connections = value().parse().unwrap_or_else(|e| fail(e)),
            "--fault" => o.fault = value().parse().unwrap_or_else(|e| fail(e)),
            "--server-bin" => o.server_bin = Some(PathBuf::from(value())),
            other => fail(format!("unknown option {other}")),
        }
    }
    if o.project.is_empty() {
        fail("--project P is needed (see the top of benches/load.rs)");
    }
    if o.fault > 0 && o.server_bin.is_none() {
        fail("--fault needs --server-bin (the factdesk binary to run `serve` with)");
    }
    o
}

/// What the clients measured.
#[derive(Debug, Default)]
struct Tally {
    next_ms: Vec<f64>,
    submit_ms: Vec<f64>,
    acks: Vec<String>,
    retries: u64,
    refused: u64,
    exhausted: u64,
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

/// One request with retries: transport failures (the server is down) and 503 wait with
/// doubling backoff and go again until the deadline. `None` past the deadline.
async fn send(
    http: &reqwest::Client,
    build: impl Fn(&reqwest::Client) -> reqwest::RequestBuilder,
    deadline: Instant,
    retries: &mut u64,
) -> Option<(reqwest::StatusCode, serde_json::Value, f64)> {
    let mut wait = Duration::from_millis(25);
    loop {
        if Instant::now() >= deadline {
            return None;
        }
        let started = Instant::now();
        match build(http).send().await {
            Ok(response) if response.status() != reqwest::StatusCode::SERVICE_UNAVAILABLE => {
                let status = response.status();
                match response.json::<serde_json::Value>().await {
                    Ok(body) => return Some((status, body, started.elapsed().as_secs_f64() * 1e3)),
                    Err(_) => *retries += 1,
                }
            }
            _ => *retries += 1,
        }
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(Duration::from_millis(800));
    }
}

/// An annotator: signs in, then next → submit ("no evidence", so every answer counts
/// and the overlap check is exact) until the deadline.
async fn annotator(base: String, name: String, deadline: Instant, tally: Arc<Mutex<Tally>>) {
    let http = reqwest::Client::new();
    let mut mine = Tally::default();
    let login = serde_json::json!({"name": name, "password": format!("{name}-bench-password")});
    let url = |p: &str| format!("{base}{p}");
    let token = match send(
        &http,
        |h| h.post(url("/api/v1/login")).json(&login),
        deadline,
        &mut mine.retries,
    )
    .await
    {
        Some((s, body, _)) if s.is_success() => {
            body["token"].as_str().unwrap_or_default().to_string()
        }
        Some((s, body, _)) => fail(format!("{name} cannot sign in: {s} {body}")),
        None => return,
    };
    loop {
        let Some((status, next, ms)) = send(
            &http,
            |h| h.get(url("/api/v1/next?kind=evidence")).bearer_auth(&token),
            deadline,
            &mut mine.retries,
        )
        .await
        else {
            break;
        };
        if !status.is_success() {
            mine.refused += 1;
            continue;
        }
        mine.next_ms.push(ms);
        let Some(task_id) = next["item"]["task_id"].as_i64() else {
            mine.exhausted += 1;
            break;
        };
        let answer = serde_json::json!({"task_id": task_id, "no_evidence": true});
        let Some((status, ack, ms)) = send(
            &http,
            |h| {
                h.post(url("/api/v1/answers"))
                    .bearer_auth(&token)
                    .json(&answer)
            },
            deadline,
            &mut mine.retries,
        )
        .await
        else {
            break;
        };
        if !status.is_success() {
            mine.refused += 1;
            continue;
        }
        mine.submit_ms.push(ms);
        mine.acks
            .push(ack["ack"].as_str().unwrap_or_default().to_string());
    }
    if let Ok(mut all) = tally.lock() {
        all.next_ms.extend(mine.next_ms);
        all.submit_ms.extend(mine.submit_ms);
        all.acks.extend(mine.acks);
        all.retries += mine.retries;
        all.refused += mine.refused;
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

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let o = options();
    let names = annotators(&o.project, o.clients);
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    println!(
        "{} clients for {} s on {} ({} connections{}); load average at start {}",
        o.clients,
        o.seconds,
        o.project,
        o.connections,
        if o.fault > 0 {
            format!(", {} SIGKILLs", o.fault)
        } else {
            String::new()
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
    let started = Instant::now();
    let deadline = started + Duration::from_secs(o.seconds);
    let tally = Arc::new(Mutex::new(Tally::default()));
    let clients: Vec<_> = names
        .into_iter()
        .map(|name| tokio::spawn(annotator(base.clone(), name, deadline, tally.clone())))
        .collect();
    let mut kills = 0;
    if let (Some(bin), Some(c)) = (&o.server_bin, child.as_mut()) {
        let every = Duration::from_secs(o.seconds) / (o.fault as u32 + 1);
        for _ in 0..o.fault {
            tokio::time::sleep(every).await;
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
    let mut t = std::mem::take(&mut *tally.lock().unwrap_or_else(|e| e.into_inner()));
    t.next_ms.sort_by(f64::total_cmp);
    t.submit_ms.sort_by(f64::total_cmp);
    println!(
        "next: {} calls, p50 {:.2} ms, p95 {:.2} ms, p99 {:.2} ms",
        t.next_ms.len(),
        percentile(&t.next_ms, 0.50),
        percentile(&t.next_ms, 0.95),
        percentile(&t.next_ms, 0.99)
    );
    println!(
        "submit: {} acks, p50 {:.2} ms, p95 {:.2} ms, p99 {:.2} ms; {:.0} answers/s over {:.1} s",
        t.submit_ms.len(),
        percentile(&t.submit_ms, 0.50),
        percentile(&t.submit_ms, 0.95),
        percentile(&t.submit_ms, 0.99),
        t.submit_ms.len() as f64 / elapsed,
        elapsed
    );
    println!(
        "retries {}, refused {}, clients out of work {}, server kills {kills}; load average at end {}",
        t.retries,
        t.refused,
        t.exhausted,
        load_average()
    );
    let project = open(&o.project);
    let lead = project.lead_or_owner(None).unwrap_or_else(|e| fail(e));
    let audit = project.serving_audit(&lead).unwrap_or_else(|e| fail(e));
    let missing = project
        .missing_answers(&lead, &t.acks)
        .unwrap_or_else(|e| fail(e));
    println!(
        "audit: {} tasks over overlap, {} double answers, {} of {} acknowledged answers missing ({} answers superseded a retried one)",
        audit.tasks_over_overlap,
        audit.double_answers,
        missing.len(),
        t.acks.len(),
        audit.superseding_answers
    );
    if audit.tasks_over_overlap > 0
        || audit.double_answers > 0
        || !missing.is_empty()
        || t.refused > 0
    {
        std::process::exit(1);
    }
}
