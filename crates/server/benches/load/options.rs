//! The load bench's command line.

use std::path::PathBuf;

/// Stops the bench with a message about its command line.
pub fn fail(message: impl std::fmt::Display) -> ! {
    eprintln!("error: {message}");
    std::process::exit(2)
}

#[derive(Debug)]
pub struct Options {
    pub project: String,
    pub clients: usize,
    pub seconds: u64,
    pub connections: usize,
    pub fault: usize,
    pub server_bin: Option<PathBuf>,
    pub think_ms: f64,
    pub db_restart: Option<String>,
    pub during: Option<String>,
    pub during_after: f64,
    pub kind: String,
    pub browser: bool,
}

/// The bench's options from its command line (see the top of benches/load.rs).
pub fn options() -> Options {
    let mut o = Options {
        project: String::new(),
        clients: 200,
        seconds: 60,
        connections: 8,
        fault: 0,
        server_bin: None,
        think_ms: 0.0,
        db_restart: None,
        during: None,
        during_after: 3.0,
        kind: "evidence".to_string(),
        browser: false,
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
            "--think-ms" => o.think_ms = value().parse().unwrap_or_else(|e| fail(e)),
            "--db-restart" => o.db_restart = Some(value()),
            "--during" => o.during = Some(value()),
            "--kind" => o.kind = value(),
            "--browser" => o.browser = true,
            "--during-after" => o.during_after = value().parse().unwrap_or_else(|e| fail(e)),
            other => fail(format!("unknown option {other}")),
        }
    }
    if o.project.is_empty() {
        fail("--project P is needed (see the top of benches/load.rs)");
    }
    if o.db_restart.is_some() && o.fault == 0 {
        fail("--db-restart is part of the fault run: give --fault K too");
    }
    if o.fault > 0 && o.server_bin.is_none() {
        fail("--fault needs --server-bin (the factdesk binary to run `serve` with)");
    }
    o
}
