//! A project with a team, served on a loopback port for one test.

use factdesk_api::annotators::Role;
use factdesk_api::import::{import, ImportRequest};
use factdesk_api::settings::EvidenceStance;
use factdesk_api::sign_in::SignInPolicy;
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ManualClock, NoProgress, Project};
use factdesk_server::{AppState, Opener};
use std::io::Write;
use std::path::{Path, PathBuf};

pub const START: i64 = 1_700_000_000_000;

pub fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// The password each person of the team signs in with.
pub fn password(name: &str) -> String {
    format!("{name}-password")
}

/// A running server over a project with a lead (maria) and annotators (ana, ben, dan,
/// eve), evidence tasks of overlap 2 under the `supports` stance (so every item shows a
/// trick sentence: the claim's negation).
pub struct Team {
    _dir: tempfile::TempDir,
    pub path: PathBuf,
    pub clock: ManualClock,
    pub base: String,
    pub http: reqwest::Client,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Drop for Team {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

fn make_project(dir: &Path, clock: &ManualClock, claims: usize, path: PathBuf) -> PathBuf {
    let docs = dir.join("docs.jsonl");
    let rows = dir.join("claims.jsonl");
    let mut d = ok(std::fs::File::create(&docs));
    let mut c = ok(std::fs::File::create(&rows));
    for i in 0..claims {
        let text = format!(
            "The harbour of town {i} held {i} ships in 1900. Its lighthouse was built in {}. The mayor of town {i} opened a museum. Fishing declined after the war. A ferry linked town {i} to the island.",
            1800 + i
        );
        ok(writeln!(
            d,
            "{}",
            serde_json::json!({"id": format!("d{i}"), "text": text})
        ));
        let claim = format!("Town {i} had a lighthouse built in {}", 1800 + i);
        let row = serde_json::json!({"id": format!("c{i}"), "claim": claim, "doc_ids": [format!("d{i}")], "label": "REFUTED"});
        ok(writeln!(c, "{row}"));
    }
    let mut p = ok(Project::create(&path, Box::new(clock.clone())));
    let owner = ok(p.as_lead(&ok(p.lead_or_owner(None)), "act as a lead"));
    let req = ImportRequest {
        claims: vec![rows],
        documents: vec![docs],
        ..Default::default()
    };
    ok(import(&mut p, &owner, &req, &mut NoProgress));
    let mut settings = ok(p.settings());
    settings.choose_stance(EvidenceStance::Supports);
    ok(p.set_settings(&owner, &settings));
    ok(p.add_annotator_with_password(&owner, "maria", Role::Lead, &password("maria")));
    let maria = ok(p.as_lead(&ok(p.actor("maria")), "act as a lead"));
    for name in ["ana", "ben", "dan", "eve"] {
        ok(p.add_annotator_with_password(&maria, name, Role::Annotator, &password(name)));
    }
    ok(p.create_tasks(&maria, TaskKind::Evidence, Some(2)));
    path
}

impl Team {
    pub async fn start(policy: SignInPolicy) -> Team {
        Team::start_with(policy, factdesk_server::DEFAULT_BODY_LIMIT, None).await
    }

    /// A team whose server takes import bodies up to `import_limit` bytes.
    pub async fn start_limits(policy: SignInPolicy, import_limit: usize) -> Team {
        Team::start_full(
            policy,
            factdesk_server::DEFAULT_BODY_LIMIT,
            import_limit,
            None,
        )
        .await
    }

    /// A team whose server opens projects with `open` instead of the project's path.
    pub async fn start_with(policy: SignInPolicy, body_limit: usize, open: Option<Opener>) -> Team {
        let import_limit = factdesk_server::DEFAULT_IMPORT_LIMIT;
        Team::start_full(policy, body_limit, import_limit, open).await
    }

    async fn start_full(
        policy: SignInPolicy,
        body_limit: usize,
        import_limit: usize,
        open: Option<Opener>,
    ) -> Team {
        let dir = ok(tempfile::tempdir());
        let clock = ManualClock::new(START);
        let path = dir.path().join("team.fdesk");
        let path = make_project(dir.path(), &clock, 6, path);
        Team::serve(
            dir,
            clock,
            path,
            (4, policy),
            (body_limit, import_limit),
            open,
            std::convert::identity,
        )
    }

    /// A team on a project file with the default limits and sign-in policy, its server's
    /// state changed by `tweak`.
    fn start_tweaked(tweak: impl FnOnce(AppState) -> AppState) -> Team {
        let dir = ok(tempfile::tempdir());
        let clock = ManualClock::new(START);
        let path = dir.path().join("team.fdesk");
        let path = make_project(dir.path(), &clock, 6, path);
        let limits = (
            factdesk_server::DEFAULT_BODY_LIMIT,
            factdesk_server::DEFAULT_IMPORT_LIMIT,
        );
        let policy = SignInPolicy::default();
        Team::serve(dir, clock, path, (4, policy), limits, None, tweak)
    }

    /// A team whose server has `connections` connections to the project and holds every
    /// search at `hold` before it searches the index.
    pub async fn start_searches_held(
        connections: usize,
        hold: std::sync::Arc<factdesk_server::SearchHold>,
    ) -> Team {
        let dir = ok(tempfile::tempdir());
        let clock = ManualClock::new(START);
        let path = dir.path().join("team.fdesk");
        let path = make_project(dir.path(), &clock, 6, path);
        let limits = (
            factdesk_server::DEFAULT_BODY_LIMIT,
            factdesk_server::DEFAULT_IMPORT_LIMIT,
        );
        let policy = SignInPolicy::default();
        let tweak = move |state: AppState| state.with_search_hold(hold);
        Team::serve(dir, clock, path, (connections, policy), limits, None, tweak)
    }

    /// A team whose server checks `at_once` passwords at a time, a sign-in waiting `wait`.
    pub async fn start_hashing(at_once: usize, wait: std::time::Duration) -> Team {
        Team::start_tweaked(move |state| state.with_hashing(at_once, wait))
    }

    /// A team whose server closes connections slower than `headers` to send a request's
    /// headers and answers 408 to bodies slower than `body`.
    pub async fn start_timeouts(headers: std::time::Duration, body: std::time::Duration) -> Team {
        Team::start_tweaked(move |state| state.with_read_timeouts(headers, body))
    }

    /// A team whose server lets one address hold at most `cap` connections open.
    pub async fn start_capped(cap: usize) -> Team {
        Team::start_tweaked(move |state| state.with_connections_per_address(cap))
    }

    /// A team whose server caps an address at `cap` connections and believes
    /// X-Forwarded-For from `proxy`.
    pub async fn start_capped_behind(cap: usize, proxy: &str) -> Team {
        let proxy: std::net::IpAddr = ok(proxy.parse());
        Team::start_tweaked(move |state| {
            state
                .with_connections_per_address(cap)
                .with_trusted_proxy(Some(proxy))
        })
    }

    /// A team whose server believes X-Forwarded-For from `proxy`.
    pub async fn start_behind(proxy: &str) -> Team {
        let proxy: std::net::IpAddr = ok(proxy.parse());
        Team::start_tweaked(move |state| state.with_trusted_proxy(Some(proxy)))
    }

    /// A team whose server believes X-Forwarded-For from `proxy` and checks `at_once`
    /// passwords at a time, a sign-in waiting `wait`.
    pub async fn start_behind_hashing(
        proxy: &str,
        at_once: usize,
        wait: std::time::Duration,
    ) -> Team {
        let proxy: std::net::IpAddr = ok(proxy.parse());
        Team::start_tweaked(move |state| {
            state
                .with_trusted_proxy(Some(proxy))
                .with_hashing(at_once, wait)
        })
    }

    /// A client whose connections come from `address` (any 127.x.y.z on loopback), so
    /// a test can sign in from several addresses.
    pub fn client_from(address: &str) -> reqwest::Client {
        let ip: std::net::IpAddr = ok(address.parse());
        ok(reqwest::Client::builder().local_address(ip).build())
    }

    /// Signs `name` in with `password` through `client`.
    pub async fn login_with(
        &self,
        client: &reqwest::Client,
        name: &str,
        password: &str,
    ) -> reqwest::Response {
        ok(client
            .post(self.url("/api/v1/login"))
            .json(&serde_json::json!({"name": name, "password": password}))
            .send()
            .await)
    }

    /// A team whose project is the empty PostgreSQL database at `url`, served with
    /// `connections` connections. Needs a multi-threaded runtime: PostgreSQL's client
    /// blocks.
    pub async fn start_on_postgres(url: &str, connections: usize) -> Team {
        let dir = ok(tempfile::tempdir());
        let clock = ManualClock::new(START);
        let path =
            tokio::task::block_in_place(|| make_project(dir.path(), &clock, 6, PathBuf::from(url)));
        let policy = SignInPolicy::default();
        Team::serve(
            dir,
            clock,
            path,
            (connections, policy),
            (
                factdesk_server::DEFAULT_BODY_LIMIT,
                factdesk_server::DEFAULT_IMPORT_LIMIT,
            ),
            None,
            std::convert::identity,
        )
    }

    fn serve(
        dir: tempfile::TempDir,
        clock: ManualClock,
        path: PathBuf,
        (connections, policy): (usize, SignInPolicy),
        (body_limit, import_limit): (usize, usize),
        open: Option<Opener>,
        tweak: impl FnOnce(AppState) -> AppState,
    ) -> Team {
        let open = open.unwrap_or_else(|| {
            let clock = clock.clone();
            factdesk_server::opener(path.clone(), move || Box::new(clock.clone()))
        });
        let state =
            AppState::new(open, connections, policy, body_limit).with_import_limit(import_limit);
        let state = tweak(state);
        let listener = ok(std::net::TcpListener::bind("127.0.0.1:0"));
        let base = format!("http://{}", ok(listener.local_addr()));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(factdesk_server::serve_on(
            listener,
            state,
            None,
            async move {
                let _ = stopped.await;
            },
        ));
        Team {
            _dir: dir,
            path,
            clock,
            base,
            http: reqwest::Client::new(),
            stop: Some(stop),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The project, opened beside the server, for what a test does behind it.
    pub fn project(&self) -> Project {
        ok(Project::open(&self.path, Box::new(self.clock.clone())))
    }

    /// The project's counts, as its lead reads them beside the server.
    pub fn counts(&self) -> factdesk_api::dto::Stats {
        let p = self.project();
        ok(p.stats(&ok(p.as_lead(&ok(p.lead_or_owner(None)), "read the counts"))))
    }

    /// Adds `name` as a second lead (maria adds them, beside the server), who signs in
    /// with [`password`]: for a lead's stream a test ends while maria's goes on. Blocks in
    /// place, as PostgreSQL's client does.
    pub fn add_lead(&self, name: &str) {
        tokio::task::block_in_place(|| {
            let mut p = self.project();
            let maria = ok(p.as_lead(&ok(p.actor("maria")), "act as a lead"));
            ok(p.add_annotator_with_password(&maria, name, Role::Lead, &password(name)));
        });
    }

    /// Makes the lead `name` an annotator, beside the server, as no use case does: the
    /// stored role is what the server reads on each check.
    pub fn demote(&self, name: &str) {
        tokio::task::block_in_place(|| {
            let p = self.project();
            let changed = ok(p.store().read().execute(
                "UPDATE annotators SET role = 'annotator' WHERE name = ?1",
                [name],
            ));
            assert_eq!(changed, 1, "{name} was demoted");
        });
    }

    /// The lead's event stream for `token`, read up to its first event (`event: ready`).
    pub async fn events_ready(&self, token: &str) -> reqwest::Response {
        let mut stream = self.get("/api/v1/events", Some(token)).await;
        assert_eq!(stream.status(), 200, "the stream opens");
        let mut seen = String::new();
        // The bound only tells "late" from "never" on a busy machine.
        while !seen.contains("event: ready") {
            let chunk =
                ok(tokio::time::timeout(std::time::Duration::from_secs(20), stream.chunk()).await);
            let chunk = ok(chunk);
            assert!(chunk.is_some(), "the stream ended before ready: {seen:?}");
            seen.push_str(&String::from_utf8_lossy(&chunk.unwrap_or_default()));
        }
        stream
    }

    pub async fn login(&self, name: &str, password: &str) -> reqwest::Response {
        ok(self
            .http
            .post(self.url("/api/v1/login"))
            .json(&serde_json::json!({"name": name, "password": password}))
            .send()
            .await)
    }

    /// A token of `name`, signed in with their password.
    pub async fn token(&self, name: &str) -> String {
        let response = self.login(name, &password(name)).await;
        assert_eq!(response.status(), 200, "{name} signs in");
        let body: serde_json::Value = ok(response.json().await);
        body["token"].as_str().unwrap_or_default().to_string()
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> reqwest::Response {
        let mut request = self.http.get(self.url(path));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        ok(request.send().await)
    }

    pub async fn post(&self, path: &str, token: Option<&str>, body: &str) -> reqwest::Response {
        let mut request = self
            .http
            .post(self.url(path))
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        ok(request.send().await)
    }

    /// The next evidence item for `token`, as JSON.
    pub async fn next(&self, token: &str) -> serde_json::Value {
        let response = self.get("/api/v1/next?kind=evidence", Some(token)).await;
        assert_eq!(response.status(), 200);
        ok(response.json().await)
    }

    /// Answers the next item selecting its first option; the ack as JSON.
    pub async fn answer_next(&self, token: &str, comment: &str) -> serde_json::Value {
        let next = self.next(token).await;
        let item = &next["item"];
        let answer = serde_json::json!({
            "task_id": item["task_id"],
            "selected": [item["options"][0]["id"]],
            "comment": comment,
        });
        let response = self
            .post("/api/v1/answers", Some(token), &answer.to_string())
            .await;
        assert_eq!(response.status(), 200, "the answer is taken");
        ok(response.json().await)
    }
}

/// The error body of a response: its code and message.
pub async fn error_of(response: reqwest::Response) -> (u16, String, String) {
    let status = response.status().as_u16();
    let body: serde_json::Value = ok(response.json().await);
    (
        status,
        body["code"].as_str().unwrap_or_default().to_string(),
        body["message"].as_str().unwrap_or_default().to_string(),
    )
}

/// Whether the event stream of `response` ends within `wait` (heartbeats are 4 s apart).
pub async fn stream_ends(mut response: reqwest::Response, wait: std::time::Duration) -> bool {
    tokio::time::timeout(wait, async {
        while let Ok(Some(_)) = response.chunk().await {}
    })
    .await
    .is_ok()
}
