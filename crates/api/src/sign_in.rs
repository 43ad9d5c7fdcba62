//! Signing in to a shared project: passwords (argon2, stored as PHC strings), sessions
//! held by random bearer tokens of which only a hash is stored (listed and ended by a
//! lead, ended by a password change), a lead disabling a person, and limits on guessing
//! per name and address and per name from anywhere. A front end (the team server) turns
//! a token into an [`Actor`] here and passes it on: the roles stay the api's to check.

use crate::annotators::{name_of, Role};
use crate::Lead;
use crate::{Actor, Error, ErrorCode, Project, Result};
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use factdesk_store::sign_in;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use ts_rs::TS;

mod device;
mod login;
pub use login::CheckedSignIn;

/// The shortest password accepted, in characters.
pub const MIN_PASSWORD_CHARS: usize = 8;
/// The longest password accepted, in bytes: hashing is costly enough without letting a
/// request choose its size.
pub const MAX_PASSWORD_BYTES: usize = 1024;

/// The longest name a sign-in takes, in characters; a longer one is refused before any
/// password is checked or anything is stored.
pub const MAX_NAME_CHARS: usize = 200;
/// The longest a much-guessed name's sign-ins are held back, in milliseconds.
pub const MAX_SLOWDOWN_MS: i64 = 5_000;

/// A name past its budget of failures is next checked this long after its last failure,
/// twice as long after each failure more.
pub const FIRST_NAME_WAIT_MS: i64 = 1_000;
/// A name's failures from anywhere are forgotten after a day without one.
pub const NAME_MEMORY_MS: i64 = 24 * 3600 * 1000;
/// How long an address a name signed in from stays known for it: 30 days.
pub const KNOWN_ADDRESS_MS: i64 = 30 * 24 * 3600 * 1000;
/// A session's last use is noted at most this often (it costs a write).
pub const LAST_SEEN_EVERY_MS: i64 = 60_000;

/// How long sessions last and how much guessing is allowed; the server's options.
///
/// Guessing is blocked per name *and* address: whoever guesses a name from one address
/// is refused there, while its owner still signs in from their own. Failures for a name
/// from anywhere first space its checks out (from elsewhere, a second more per failure
/// past `failures_before_slowing_a_name` after the last, at most [`MAX_SLOWDOWN_MS`]); past
/// `failures_per_name` the name is checked at most once per wait, a wait that doubles
/// with each failure (from [`FIRST_NAME_WAIT_MS`] to `longest_name_wait_ms`), so guesses
/// spread over many addresses get a few dozen checks a day, not millions. Meanwhile the
/// name's owner still signs in from an address they signed in from within
/// [`KNOWN_ADDRESS_MS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignInPolicy {
    /// A session's lifetime from sign-in.
    pub session_ms: i64,
    /// Failed sign-ins for one name from one address within `window_ms` before that
    /// name is refused from that address.
    pub failures_per_name_and_address: u64,
    /// Failed sign-ins for one name from anywhere within `window_ms` past which its
    /// checks from addresses it did not sign in from are spaced out.
    pub failures_before_slowing_a_name: u64,
    pub window_ms: i64,
    /// Failed checks of one name from anywhere (forgotten after [`NAME_MEMORY_MS`]
    /// without one) before further checks of it wait.
    pub failures_per_name: u64,
    /// The longest wait between two checks of a much-guessed name.
    pub longest_name_wait_ms: i64,
    /// Failed sign-ins from one address, whatever the names, within `window_ms` before
    /// that address's sign-ins are refused (but for names that signed in from it before):
    /// new names each time passed the limits by name and took every password check.
    pub failures_per_address: u64,
    /// Sign-ins one name may make within a minute: each checks a password, and one
    /// person's right password in a loop took every check from the team (fifth hostile
    /// pass of session 26's door).
    pub sign_ins_per_name_a_minute: u64,
    /// Live sessions one person may hold; a new one ends the oldest past it.
    pub sessions_per_person: u64,
}

impl Default for SignInPolicy {
    fn default() -> SignInPolicy {
        SignInPolicy {
            session_ms: 12 * 3600 * 1000,
            failures_per_name_and_address: 5,
            failures_before_slowing_a_name: 10,
            window_ms: 15 * 60 * 1000,
            failures_per_name: 20,
            longest_name_wait_ms: 3600 * 1000,
            failures_per_address: 30,
            sign_ins_per_name_a_minute: 10,
            sessions_per_person: 50,
        }
    }
}

/// What `POST /api/v1/login` sends.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct Login {
    pub name: String,
    pub password: String,
    /// The device token an earlier sign-in of this person gave back, if the client kept
    /// it: with it, guesses of the name from the same address do not hold its owner.
    #[serde(default)]
    #[ts(optional)]
    pub device: Option<String>,
}

/// A session: the bearer token (shown once, never stored) and the person's role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Session {
    pub token: String,
    pub role: Role,
    /// When the token stops working, unix milliseconds.
    pub expires_at: i64,
    /// A device token for this person's next sign-ins from this client (see
    /// `Login::device`); a new password ends it.
    pub device: String,
    /// Whose it is, for the server's own use: never sent.
    #[serde(skip)]
    #[ts(skip)]
    pub person: i64,
}

/// A live session as a lead lists it: who holds it and since when, never its token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionInfo {
    /// The start of the token's hash: names the session to end it.
    pub id: String,
    pub name: String,
    pub role: Role,
    /// The address it was opened from (the caller's, behind a trusted proxy).
    pub address: Option<String>,
    /// Unix milliseconds.
    pub created_at: i64,
    /// When it was last used, to the minute; unix milliseconds.
    pub last_seen_at: Option<i64>,
    pub expires_at: i64,
}

fn unauthorized(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::Unauthorized, message)
}

/// The stored form of a token: its SHA-256, hex. Tokens are 256 random bits, so a fast
/// hash is enough (no one can guess one to test against a stolen hash).
fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

fn random_bytes<const N: usize>() -> Result<[u8; N]> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|e| {
        Error::new(
            ErrorCode::Io,
            format!("the system gave no random bytes: {e}"),
        )
    })?;
    Ok(bytes)
}

/// Hashes a new password, after checking its length.
fn hash_password(password: &str) -> Result<String> {
    let chars = password.chars().count();
    if chars < MIN_PASSWORD_CHARS {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            format!(
                "a password needs at least {MIN_PASSWORD_CHARS} characters; this one has {chars}"
            ),
        ));
    }
    if password.trim().is_empty() || password.contains('\0') {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            "a password cannot be only spaces or contain a NUL character",
        ));
    }
    if password.len() > MAX_PASSWORD_BYTES {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            format!("a password is at most {MAX_PASSWORD_BYTES} bytes"),
        ));
    }
    let salt = SaltString::encode_b64(&random_bytes::<16>()?)
        .map_err(|e| Error::new(ErrorCode::Io, format!("cannot make a salt: {e}")))?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| Error::new(ErrorCode::Io, format!("cannot hash the password: {e}")))
}

/// Whether `password` matches `stored`; a damaged hash matches nothing.
fn verify_password(password: &str, stored: &str) -> bool {
    PasswordHash::new(stored)
        .map(|parsed| {
            Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok()
        })
        .unwrap_or(false)
}

/// A hash nobody's password matches, checked for names that have none, so a wrong name
/// takes as long as a wrong password and the timing tells no one which names exist.
fn decoy_hash() -> String {
    // Salt and digest of no real password; parsing succeeds, so the full work is done.
    "$argon2id$v=19$m=19456,t=2,p=1$ZmFjdGRlc2tkZWNveXNhbHQ$Lx0x1ndZhFkWkmhG8mVYQ1n7ZCbYJ0Z5vBvWmV2D9lE".to_string()
}

/// The name as failures are stored: a hash, so neither its length nor its text is kept.
fn name_subject(name: &str) -> String {
    format!("name:{}", token_hash(name))
}

/// Any name tried from one address.
fn address_subject(address: &str) -> String {
    let address: String = address.chars().take(64).collect();
    format!("address:{address}")
}

/// A name tried from one address.
fn pair_subject(name: &str, address: &str) -> String {
    let address: String = address.chars().take(64).collect();
    format!("pair:{}@{address}", token_hash(name))
}

/// The name as signed in with, trimmed; refused past [`MAX_NAME_CHARS`].
fn sign_in_name(name: &str) -> Result<&str> {
    let name = name_of(name);
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            format!("name: a name has at most {MAX_NAME_CHARS} characters"),
        ));
    }
    Ok(name)
}

/// An address a name signed in from.
/// A name's successful sign-ins, for their share a minute: kept when the session ends, so
/// signing out between sign-ins does not hide them (sixth hostile pass of session 26).
fn signed_in_subject(name: &str) -> String {
    format!("signed-in:{}", token_hash(name))
}

fn known_subject(name: &str, address: &str) -> String {
    let address: String = address.chars().take(64).collect();
    format!("known:{}@{address}", token_hash(name))
}

/// When a name that failed `failures` times, the last at `last_at`, may be checked
/// again: `None` within its budget.
fn name_free_at(failures: u64, last_at: i64, policy: &SignInPolicy) -> Option<i64> {
    let past = failures.checked_sub(policy.failures_per_name.max(1))?;
    let doublings = u32::try_from(past).unwrap_or(u32::MAX).min(40);
    let wait = FIRST_NAME_WAIT_MS
        .saturating_mul(1_i64 << doublings)
        .min(policy.longest_name_wait_ms.max(FIRST_NAME_WAIT_MS));
    Some(last_at.saturating_add(wait))
}

/// When `times` (oldest first, all within the window) leave fewer than `limit` failures
/// in the window: never blocked below the limit.
fn free_at(times: &[i64], limit: u64, window_ms: i64) -> Option<i64> {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX).max(1);
    (times.len() >= limit).then(|| times[times.len() - limit] + window_ms + 1)
}

impl Project {
    /// Adds a person who signs in with `password`, in one transaction: the password is
    /// checked before anyone is added. A lead's.
    pub fn add_annotator_with_password(
        &mut self,
        by: &Lead,
        name: &str,
        role: Role,
        password: &str,
    ) -> Result<crate::annotators::Annotator> {
        self.acting_lead(by)?;
        self.store.require_writable()?;
        let name = crate::annotators::new_name(name)?.to_string();
        let hash = hash_password(password)?;
        let now = self.clock.now_ms();
        let tx = self.store.transaction()?;
        let Some(id) = factdesk_store::annotators::insert(&tx, &name, role, now)? else {
            return Err(Error::new(
                ErrorCode::AlreadyExists,
                format!("there is already an annotator called {name:?}"),
            ));
        };
        sign_in::set_password(&tx, id, &hash)?;
        tx.commit()?;
        self.find_annotator(&name)
    }

    /// Sets the password `name` signs in with, ending their sessions (a password is
    /// changed because it may have leaked); a lead's, and checked like any new one.
    pub fn set_password(&mut self, by: &Lead, name: &str, password: &str) -> Result<()> {
        self.acting_lead(by)?;
        self.store.require_writable()?;
        let person = self.annotator_row(name)?;
        let hash = hash_password(password)?;
        let tx = self.store.transaction()?;
        sign_in::set_password(&tx, person.id, &hash)?;
        tx.commit()?;
        Ok(())
    }

    /// Chooses `name` as the person working in the app on this project file. Someone with a
    /// password (set with `annotators P password NAME`, or by a lead in the app) gives it,
    /// so a stray key on "Who is working?" does not open a lead's screens on a shared
    /// machine (issue 36); someone without needs none. Whoever holds the file can still
    /// read it with other tools: this guards the app's door, as the server's sign-in does
    /// the network's.
    pub fn choose_person(&self, name: &str, password: Option<&str>) -> Result<Actor> {
        let actor = self.actor(name)?;
        let stored =
            sign_in::by_name(self.store.read(), actor.name())?.and_then(|c| c.password_hash);
        match (stored, password) {
            (None, _) => Ok(actor),
            (Some(_), None) => Err(Error::new(
                ErrorCode::Unauthorized,
                format!(
                    "this name has a password: type it to work as {}",
                    actor.name()
                ),
            )),
            (Some(stored), Some(given)) if verify_password(given, &stored) => Ok(actor),
            (Some(_), Some(_)) => Err(Error::new(
                ErrorCode::Unauthorized,
                format!("wrong password for {}", actor.name()),
            )),
        }
    }

    /// Disables (or enables again) a person: a disabled person cannot sign in or act, and
    /// their sessions end now. Disabling also gives back the items they were served and
    /// have neither answered nor skipped (they cannot any more), to the pool, so nothing
    /// waits on them; disabling someone already disabled gives back what they still hold.
    /// A lead's; a lead cannot disable themselves, so a project always keeps someone who
    /// can undo it.
    pub fn set_disabled(&mut self, by: &Lead, name: &str, disabled: bool) -> Result<()> {
        self.acting_lead(by)?;
        self.store.require_writable()?;
        let person = self.annotator_row(name)?;
        if disabled && by.id() == Some(person.id) {
            return Err(Error::new(
                ErrorCode::Forbidden,
                format!(
                    "{} may not disable themselves; another lead can",
                    person.name
                ),
            ));
        }
        let now = self.clock.now_ms();
        let tx = self.store.transaction()?;
        sign_in::set_disabled(&tx, person.id, disabled)?;
        if disabled {
            factdesk_store::assignments::release_all_of(&tx, person.id, now)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Whether a lead disabled `name`.
    pub fn is_disabled(&self, name: &str) -> Result<bool> {
        let person = self.annotator_row(name)?;
        Ok(sign_in::is_disabled(self.store.read(), person.id)?)
    }

    /// Whether `name` is a lead's who can sign in (with a password, not disabled): a front
    /// end keeps a password check for leads, so that a flood of others' sign-ins cannot
    /// shut the lead out, from any address.
    pub fn is_lead_name(&self, name: &str) -> Result<bool> {
        let name = sign_in_name(name)?;
        Ok(sign_in::by_name(self.store.read(), name)?
            .is_some_and(|p| p.role == Role::Lead && !p.disabled && p.password_hash.is_some()))
    }

    /// Whether `name` signed in from `address` within [`KNOWN_ADDRESS_MS`]: a front end
    /// keeps a password check for such sign-ins, so a flood of others cannot hold them.
    pub fn signed_in_here_before(&self, name: &str, address: &str) -> Result<bool> {
        let name = sign_in_name(name)?;
        let now = self.clock.now_ms();
        let known = known_subject(name, address);
        Ok(sign_in::is_known(
            self.store.read(),
            &known,
            now - KNOWN_ADDRESS_MS,
        )?)
    }

    /// How long until a sign-in of `name` is checked from an address it did not sign in
    /// from before: nothing until the name failed `failures_before_slowing_a_name` times
    /// in the window (from anywhere); then a second per failure past that (at most
    /// [`MAX_SLOWDOWN_MS`]) after its last failure. A front end refuses a sign-in that
    /// comes sooner at once (429, `Retry-After`), without checking its password: one that
    /// waited in the handler held its connection as being answered, and a few hundred of
    /// them held every place the server had (seventh hostile pass of its door).
    pub fn sign_in_delay_ms(&self, name: &str, policy: &SignInPolicy) -> Result<i64> {
        let name = sign_in_name(name)?;
        let now = self.clock.now_ms();
        let next = next_check_at(self.store.read(), name, now, policy)?;
        Ok(next.map_or(0, |at| (at - now).max(0)))
    }

    /// Refuses a sign-in of `name` that comes before its spacing ends
    /// ([`Project::sign_in_delay_ms`]), saying when to try again as every other limit
    /// does.
    pub fn check_sign_in_spacing(&self, name: &str, policy: &SignInPolicy) -> Result<()> {
        let name = sign_in_name(name)?;
        let now = self.clock.now_ms();
        match next_check_at(self.store.read(), name, now, policy)? {
            Some(at) if at > now => Err(login::limited(at, now, login::SPACED)),
            _ => Ok(()),
        }
    }

    /// The lead a bearer token stands for ([`Project::actor_for_token`], then the gate,
    /// [`Project::as_lead`]); `what` completes "… may not …".
    pub fn lead_for_token(&self, token: &str, what: &str) -> Result<crate::Lead> {
        self.as_lead(&self.actor_for_token(token)?, what)
    }

    /// The person a bearer token stands for, checked on every request: `Unauthorized`
    /// when the token is unknown, expired, or its holder was disabled.
    pub fn actor_for_token(&self, token: &str) -> Result<Actor> {
        let now = self.clock.now_ms();
        let hash = token_hash(token);
        let (p, last_seen) =
            sign_in::session_person(self.store.read(), &hash, now)?.ok_or_else(|| {
                unauthorized("this sign-in is unknown, expired or ended: sign in again")
            })?;
        if last_seen.is_none_or(|at| now - at >= LAST_SEEN_EVERY_MS) {
            // Only for the lead's list of sessions: a request does not fail, or wait,
            // because noting its time could not be written now.
            let _ = sign_in::touch_session(self.store.read(), &hash, now);
        }
        Ok(Actor::person(&self.id, p.annotator_id, &p.name, p.role))
    }

    /// The id of the person whose live session `token` is, without noting its use: the
    /// server asks it to know whose connection is whose, and again to let go of a
    /// connection once its session ended (sign-out, password reset, disabled, expired).
    pub fn session_holder(&self, token: &str) -> Result<Option<i64>> {
        let now = self.clock.now_ms();
        Ok(
            sign_in::session_person(self.store.read(), &token_hash(token), now)?
                .map(|(p, _)| p.annotator_id),
        )
    }

    /// Ends the session of `token`; true when there was one.
    pub fn logout(&mut self, token: &str) -> Result<bool> {
        let tx = self.store.transaction()?;
        let ended = sign_in::delete_session(&tx, &token_hash(token))?;
        tx.commit()?;
        Ok(ended)
    }

    /// Every session still valid, by name and then oldest first: who, from where, when
    /// it was opened and last used, when it expires; never its token. A lead's.
    pub fn sessions(&self, by: &Lead) -> Result<Vec<SessionInfo>> {
        self.acting_lead(by)?;
        let now = self.clock.now_ms();
        Ok(sign_in::live_sessions(self.store.read(), now)?
            .into_iter()
            .map(|s| SessionInfo {
                role: s.role,
                id: s.id,
                name: s.name,
                address: s.address,
                created_at: s.created_at,
                last_seen_at: s.last_seen_at,
                expires_at: s.expires_at,
            })
            .collect())
    }

    /// Ends every session of `name` (they sign in again, with their password); how many
    /// there were. A lead's.
    pub fn end_sessions(&mut self, by: &Lead, name: &str) -> Result<usize> {
        self.acting_lead(by)?;
        self.store.require_writable()?;
        let person = self.annotator_row(name)?;
        let tx = self.store.transaction()?;
        let ended = sign_in::end_sessions_of(&tx, person.id)?;
        tx.commit()?;
        Ok(ended)
    }

    /// Ends the session whose id (as [`Project::sessions`] lists it) is `id`. A lead's;
    /// `NotFound` when no session has that id.
    pub fn end_session(&mut self, by: &Lead, id: &str) -> Result<()> {
        self.acting_lead(by)?;
        self.store.require_writable()?;
        let id = id.trim().to_ascii_lowercase();
        let well_formed =
            id.len() == sign_in::SESSION_ID_CHARS && id.bytes().all(|b| b.is_ascii_hexdigit());
        if !well_formed {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!(
                    "a session id is {} hexadecimal characters, as `annotators … sessions` lists it",
                    sign_in::SESSION_ID_CHARS
                ),
            ));
        }
        let tx = self.store.transaction()?;
        let ended = sign_in::end_session_by_id(&tx, &id)?;
        tx.commit()?;
        if ended == 0 {
            return Err(Error::new(
                ErrorCode::NotFound,
                format!("no session has the id {id}: it ended or expired"),
            ));
        }
        Ok(())
    }
}

/// When a much-failed `name` is next checked from an address it did not sign in from
/// ([`Project::sign_in_delay_ms`]), if its failures space its checks out.
fn next_check_at(
    conn: &factdesk_store::Read,
    name: &str,
    now: i64,
    policy: &SignInPolicy,
) -> Result<Option<i64>> {
    let since = now - policy.window_ms;
    let (failures, last) = sign_in::failures_and_last_since(conn, &name_subject(name), since)?;
    let past = failures.saturating_sub(policy.failures_before_slowing_a_name);
    if past == 0 {
        return Ok(None);
    }
    let spacing = i64::try_from(past)
        .unwrap_or(i64::MAX)
        .saturating_mul(1000)
        .min(MAX_SLOWDOWN_MS);
    Ok(last.map(|at| at + spacing))
}

/// When `name` may next be checked from the address of `known`, while its failures from
/// anywhere hold it back there; an address it signed in from lately is not held back.
fn name_blocked_at(
    conn: &factdesk_store::Read,
    name: &str,
    known: &str,
    now: i64,
    policy: &SignInPolicy,
) -> Result<Option<i64>> {
    let Some((failures, last_at)) = sign_in::name_failures(conn, &name_subject(name))? else {
        return Ok(None);
    };
    if last_at < now - NAME_MEMORY_MS {
        return Ok(None);
    }
    let free = name_free_at(failures, last_at, policy).filter(|free| *free > now);
    if free.is_none() || sign_in::is_known(conn, known, now - KNOWN_ADDRESS_MS)? {
        return Ok(None);
    }
    Ok(free)
}

/// When sign-ins from `address` are free again, if its failures spent the policy's
/// budget (whatever the name: a name that signed in from it before is let through by
/// [`Project::check_sign_in`], and answered as the others when its password is wrong).
fn address_blocked_at(
    conn: &factdesk_store::Read,
    address: &str,
    now: i64,
    policy: &SignInPolicy,
) -> Result<Option<i64>> {
    let times = sign_in::failure_times(conn, &address_subject(address), now - policy.window_ms)?;
    Ok(free_at(
        &times,
        policy.failures_per_address,
        policy.window_ms,
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_decoy_hash_parses_so_a_wrong_name_costs_a_full_verification() {
        assert!(argon2::password_hash::PasswordHash::new(&super::decoy_hash()).is_ok());
        assert!(!super::verify_password(
            "anything at all",
            &super::decoy_hash()
        ));
    }
}
