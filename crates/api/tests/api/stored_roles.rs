//! A role is read from the project once, in the store: a stored role that is neither
//! lead nor annotator (a damaged file, a newer Factdesk) is refused with an error that
//! names the person, never taken for an annotator's (issue 32).

use factdesk_api::annotators::Role;
use factdesk_api::RawSql as _;
use factdesk_api::{ErrorCode, ManualClock, Project};

use crate::common;
use common::{must, Acting};

/// Stores `role` for `name` past the schema's check, as a damaged file or a newer
/// Factdesk would leave it.
fn store_role(p: &Project, name: &str, role: &str) {
    let conn = p.store().read();
    if common::on_postgres() {
        must(conn.execute_batch("ALTER TABLE annotators DROP CONSTRAINT annotators_role_check"));
    } else {
        must(conn.execute_batch("PRAGMA ignore_check_constraints = ON"));
    }
    let changed = must(conn.execute(
        "UPDATE annotators SET role = ?1 WHERE name = ?2",
        [role, name],
    ));
    assert_eq!(changed, 1);
}

#[test]
fn an_unknown_stored_role_is_refused_not_read_as_an_annotator() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = common::project(dir.path(), 1, &clock);
    must(p.add_annotator(&p.lead(), "maria", Role::Lead));
    must(p.add_annotator(&p.lead(), "ghost", Role::Annotator));
    let lead = p.lead();
    store_role(&p, "ghost", "owner");

    let says = |what: &str, err: Option<factdesk_api::Error>| {
        let err = err.unwrap_or_else(|| panic!("{what}: the unknown role was read"));
        assert_eq!(err.code, ErrorCode::Database, "{what}: {}", err.message);
        assert!(
            err.message.contains("annotator \"ghost\"")
                && err.message.contains("unknown role \"owner\""),
            "{what}: {}",
            err.message
        );
    };
    says("actor", p.actor("ghost").err());
    says("people", p.people().err());
    says("annotators", p.annotators(&lead).err());
    // The first lead is looked for among everyone: the damaged row stops that too.
    says("lead_or_owner", p.lead_or_owner(None).err());
    // A person whose own row reads well still acts.
    let maria = must(p.lead_or_owner(Some("maria")));
    assert_eq!(maria.role(), Role::Lead);
}
