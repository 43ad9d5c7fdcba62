//! Every operation of the app, declared once: its name, arguments, response and who may
//! call it. [`for_each_operation!`] hands the list to a macro that builds something from
//! it: the api builds [`super::Call`], [`super::Host`] and the dispatch; the desktop shell
//! its Tauri commands; the bindings test the UI's typed functions. Adding an operation
//! here without serving it fails to compile.
//!
//! Each entry reads `Variant name { args } -> Response, Who, Shell;` where `Who` is
//! `Anyone` (no one need be chosen), `Person` (anyone signed in or chosen) or `Lead`, and
//! `Shell` says how the desktop app serves it: `Local` (a command that runs the operation
//! where the work is), `Own` (a command of the shell's own with this signature) or
//! `Remote` (not a command: the shell writes its result to a file instead, and only asks
//! a server for it).

/// Calls `$callback!` with the list of every operation (see the module's doc).
#[macro_export]
macro_rules! for_each_operation {
    ($callback:ident) => {
        $callback! {
            /// The project's name and counts (no counts for an annotator). On a server the
            /// project's path is left out: it is the server's business where it keeps it.
            Overview overview -> $crate::dto::Overview, Anyone, Own;
            /// Who the call runs for: name and role.
            Me me -> $crate::annotators::Person, Person, Local;
            /// Adds a person: anyone may add the first (a lead); after that only a lead.
            AddPerson add_person {
                name: String,
                role: $crate::annotators::Role,
            } -> $crate::annotators::Person, Anyone, Local;
            /// Annotators with their trick record.
            Annotators annotators -> Vec<$crate::annotators::Annotator>, Lead, Local;
            /// Creates the tasks of a kind for every claim that has none.
            CreateTasks create_tasks {
                kind: $crate::tasks::TaskKind,
                overlap: Option<u32>,
            } -> $crate::tasks::TasksReport, Lead, Local;
            /// How many claims got no task of each kind, and why.
            ClaimsWithoutTasks claims_without_tasks -> Vec<$crate::dto::NoTask>, Lead, Local;
            /// The next item of a kind, reserved for the person working.
            NextItem next_item {
                kind: $crate::tasks::TaskKind,
            } -> $crate::annotate::Next, Person, Local;
            /// The person's progress on every kind; reserves nothing.
            Paces paces -> Vec<$crate::annotate::KindPace>, Person, Local;
            /// The answered item before `current` (the last answered one when none), with
            /// its answer.
            PreviousItem previous_item {
                kind: $crate::tasks::TaskKind,
                current: Option<i64>,
            } -> Option<$crate::annotate::Item>, Person, Local;
            /// Stores an answer; acknowledged only once it is committed.
            SubmitAnswer submit_answer {
                answer: $crate::annotate::Answer,
            } -> $crate::annotate::Ack, Person, Local;
            /// An option's passage in its document.
            Passage passage {
                task_id: i64,
                option_id: String,
            } -> $crate::annotate::Passage, Person, Local;
            /// The live checks of a refutation being written.
            CheckRefutation check_refutation {
                task_id: i64,
                text: String,
            } -> Vec<$crate::annotate::Check>, Person, Local;
            /// Claims and sentences matching the words, as far as the person may see.
            Search search {
                query: String,
            } -> Vec<$crate::dto::SearchHit>, Person, Local;
            /// Releases the item the person holds: it goes back to the pool. True when
            /// there was a reservation to release.
            SkipItem skip_item {
                task_id: i64,
            } -> bool, Person, Local;
            /// Reports a problem with an item the person was given and cannot answer: the
            /// item goes back to the pool and the report waits in the lead's list.
            ReportProblem report_problem {
                task_id: i64,
                text: String,
            } -> (), Person, Local;
            /// A claim as the person may see it: a lead everything, an annotator their
            /// own answers. `claim` is its reference as search showed it: a lead's
            /// number ("#12"), an annotator's own opaque reference.
            ClaimView claim_view {
                claim: String,
            } -> $crate::claim_view::ClaimView, Person, Local;
            /// The claims matching `words` in a standing, a page at a time.
            ClaimsList claims_list {
                words: Option<String>,
                standing: $crate::claim_view::ClaimStanding,
                offset: u64,
                limit: u64,
            } -> $crate::claim_view::ClaimPage, Lead, Local;
            /// Draws a re-annotation study; every study with its figures comes back.
            CreateStudy create_study {
                request: $crate::study::StudyRequest,
            } -> Vec<$crate::agreement::StudyAgreement>, Lead, Local;
            /// Deletes a study drawn by mistake: its items get their overlap back and its
            /// members' answers count as ordinary answers.
            DeleteStudy delete_study {
                id: i64,
            } -> $crate::study::DeletedStudy, Lead, Local;
            /// The live dashboard as of now; with `intervals`, the bootstrap intervals too
            /// (a full pass over the answers, so a client asks for them less often).
            Dashboard dashboard {
                #[serde(default)]
                intervals: bool,
            } -> $crate::dashboard::Dashboard, Lead, Local;
            /// Tasks the counted annotators disagree on, most disagreement first.
            AdjudicationQueue adjudication_queue {
                request: $crate::gold::GoldRequest,
            } -> Vec<$crate::gold::QueueItem>, Lead, Local;
            /// The lead's decision: take an annotator's answer, or give one; refused when
            /// the decision is no longer the one `seen`.
            Decide decide {
                task_id: i64,
                seen: Option<i64>,
                ruling: $crate::gold::Ruling,
                reason: Option<String>,
                /// One of the project's disagreement categories.
                #[serde(default)]
                category: Option<String>,
            } -> $crate::gold::Outcome, Lead, Local;
            /// Undoes the lead's decision `seen`.
            UndoDecision undo_decision {
                task_id: i64,
                seen: i64,
                reason: Option<String>,
            } -> (), Lead, Local;
            /// A candidate sentence among its neighbours, for the lead adjudicating.
            SentencePassage sentence_passage {
                sentence_id: i64,
            } -> $crate::annotate::Passage, Lead, Local;
            /// What an export would write; writes nothing.
            ExportPreview export_preview {
                request: $crate::gold::GoldRequest,
            } -> $crate::gold::ExportPreview, Lead, Local;
            /// Written refutations waiting for accept or reject.
            PendingReviews pending_reviews -> Vec<$crate::review::PendingReview>, Lead, Local;
            /// Accepts (opens its verification) or rejects a written refutation.
            ReviewRefutation review_refutation {
                annotation_id: i64,
                accepted: bool,
                note: Option<String>,
            } -> (), Lead, Local;
            /// Sets the password a person signs in with to a server, and gives when chosen
            /// in the app on a project file; their sessions end.
            SetPassword set_password {
                name: String,
                password: String,
            } -> (), Lead, Local;
            /// The problems annotators reported that the lead has not marked seen.
            ProblemReports problem_reports -> Vec<$crate::problems::ProblemReport>, Lead, Local;
            /// Marks a problem report seen: it leaves the list.
            MarkProblemSeen mark_problem_seen {
                id: i64,
            } -> (), Lead, Local;
            /// The project's settings (on a server, a lead's).
            Settings settings -> $crate::settings::Settings, Lead, Local;
            /// Stores the settings; the stored ones come back. With `based_on`, the
            /// settings the change was made from, a save is refused (conflict) when
            /// another lead or window saved in between, so neither change is lost.
            SaveSettings save_settings {
                settings: $crate::settings::Settings,
                based_on: Option<Box<$crate::settings::Settings>>,
            } -> $crate::settings::Settings, Lead, Local;
            /// Counts (true) or leaves out (false) a flagged annotator, or follows the
            /// flag (none).
            FlagDecision flag_decision {
                name: String,
                include: Option<bool>,
            } -> $crate::annotators::Annotator, Lead, Local;
            /// The packs this project issued, newest first.
            Packs packs -> Vec<$crate::packs::PackSummary>, Lead, Local;
            /// The gold export's files as bytes, for the client to write where its user
            /// chose.
            ExportGold export_gold {
                request: $crate::gold::GoldRequest,
                format: $crate::gold::ExportFormat,
            } -> $crate::download::Download, Lead, Remote;
            /// The raw answers as one file's bytes.
            ExportAnswers export_answers {
                format: $crate::answers::AnswersFormat,
            } -> $crate::download::Download, Lead, Remote;
            /// Issues a pack for an annotator; the pack file's bytes come back.
            IssuePack issue_pack {
                request: $crate::packs::PackRequest,
            } -> $crate::download::Download, Lead, Remote;
        }
    };
}
