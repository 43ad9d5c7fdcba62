//! Signing in to a shared project: passwords (argon2, stored as PHC strings), sessions
//! held by random bearer tokens of which only a hash is stored, a lead disabling a
//! person, and a limit on guessing per name and per address. A front end (the team
//! server) turns a token into an [`Actor`] here and passes it on: the roles stay the
//! api's to check.

use crate::annotators::{name_of, Role};
use crate::{Actor, Error, ErrorCode, Project, Result};
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use factdesk_store::sign_in;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use ts_rs::TS;

/// The shortest password accepted, in characters.
pub const MIN_PASSWORD_CHARS: usize = 8;
/// The longest password accepted, in bytes: hashing is costly enough without letting a
/// request choose its size.
pub const MAX_PASSWORD_BYTES: usize = 1024;

/// How long sessions last and how much guessing is allowed; the server's options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignInPolicy {
    /// A session's lifetime from sign-in.
    pub session_ms: i64,
    /// Failed sign-ins for one name within `window_ms` before that name is refused.
    pub failures_per_name: u64,
    /// Failed sign-ins from one address within `window_ms` before it is refused.
    pub failures_per_address: u64,
    pub window_ms: i64,
}

impl Default for SignInPolicy {
    fn default() -> SignInPolicy {
        SignInPolicy {
            session_ms: 12 * 3600 * 1000,
            failures_per_name: 5,
            failures_per_address: 50,
            window_ms: 15 * 60 * 1000,
        }
    }
}

/// What `POST /api/v1/login` sends.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct Login {
    pub name: String,
    pub password: String,
}

/// A session: the bearer token (shown once, never stored) and the person's role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Session {
    pub token: String,
    pub role: Role,
    /// When the token stops working, unix milliseconds.
    pub expires_at: i64,
}

fn unauthorized(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::Unauthorized, message)
}

fn role_of(stored: &str) -> Role {
    if stored == Role::Lead.as_str() {
        Role::Lead
    } else {
        Role::Annotator
    }
}

/// The stored form of a token: its SHA-256, hex. Tokens are 256 random bits, so a fast
/// hash is enough (no one can guess one to test against a stolen hash).
fn token_hash(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
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

fn name_subject(name: &str) -> String {
    format!("name:{name}")
}

fn address_subject(address: &str) -> String {
    format!("address:{address}")
}

impl Project {
    /// Adds a person who signs in with `password`, in one transaction: the password is
    /// checked before anyone is added. A lead's.
    pub fn add_annotator_with_password(
        &mut self,
        by: &Actor,
        name: &str,
        role: Role,
        password: &str,
    ) -> Result<crate::annotators::Annotator> {
        self.require_lead(by, "add people")?;
        self.store.require_writable()?;
        let name = crate::annotators::new_name(name)?.to_string();
        let hash = hash_password(password)?;
        let now = self.clock.now_ms();
        let tx = self.store.transaction()?;
        let Some(id) = factdesk_store::annotators::insert(&tx, &name, role.as_str(), now)? else {
            return Err(Error::new(
                ErrorCode::AlreadyExists,
                format!("there is already an annotator called {name:?}"),
            ));
        };
        sign_in::set_password(&tx, id, &hash)?;
        tx.commit()?;
        self.find_annotator(&name)
    }

    /// Sets the password `name` signs in with; a lead's, and checked like any new one.
    pub fn set_password(&mut self, by: &Actor, name: &str, password: &str) -> Result<()> {
        self.require_lead(by, "set passwords")?;
        self.store.require_writable()?;
        let person = self.annotator_row(name)?;
        let hash = hash_password(password)?;
        let tx = self.store.transaction()?;
        sign_in::set_password(&tx, person.id, &hash)?;
        tx.commit()?;
        Ok(())
    }

    /// Disables (or enables again) a person: a disabled person cannot sign in or act, and
    /// their sessions end now. A lead's; a lead cannot disable themselves, so a project
    /// always keeps someone who can undo it.
    pub fn set_disabled(&mut self, by: &Actor, name: &str, disabled: bool) -> Result<()> {
        self.require_lead(by, "disable people")?;
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
        let tx = self.store.transaction()?;
        sign_in::set_disabled(&tx, person.id, disabled)?;
        tx.commit()?;
        Ok(())
    }

    /// Whether a lead disabled `name`.
    pub fn is_disabled(&self, name: &str) -> Result<bool> {
        let person = self.annotator_row(name)?;
        Ok(sign_in::is_disabled(self.store.conn(), person.id)?)
    }

    /// Signs `name` in from `address` (what the front end knows of the caller, e.g. an
    /// IP address): a new session, or `Unauthorized` for a wrong name or password (the
    /// same message for both), or `RateLimited` once the name or the address failed
    /// too often within the policy's window, whatever the password.
    pub fn login(
        &mut self,
        name: &str,
        password: &str,
        address: &str,
        policy: &SignInPolicy,
    ) -> Result<Session> {
        let name = name_of(name);
        let now = self.clock.now_ms();
        let since = now - policy.window_ms;
        let (by_name, by_address) = (name_subject(name), address_subject(address));
        let conn = self.store.conn();
        if sign_in::failures_since(conn, &by_name, since)? >= policy.failures_per_name
            || sign_in::failures_since(conn, &by_address, since)? >= policy.failures_per_address
        {
            return Err(Error::new(
                ErrorCode::RateLimited,
                "too many failed sign-ins for this name or from this address; wait a few minutes and try again",
            ));
        }
        let person = sign_in::by_name(conn, name)?;
        let stored = person
            .as_ref()
            .and_then(|p| p.password_hash.clone())
            .unwrap_or_else(decoy_hash);
        let matches = password.len() <= MAX_PASSWORD_BYTES && verify_password(password, &stored);
        let person = match person {
            Some(p) if matches && p.password_hash.is_some() => p,
            _ => {
                let tx = self.store.transaction()?;
                sign_in::record_failure(&tx, &by_name, now, since)?;
                sign_in::record_failure(&tx, &by_address, now, since)?;
                tx.commit()?;
                return Err(unauthorized("wrong name or password"));
            }
        };
        if person.disabled {
            return Err(unauthorized(format!(
                "{} was disabled by a lead of this project",
                person.name
            )));
        }
        let token: String = random_bytes::<32>()?
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let expires_at = now.saturating_add(policy.session_ms);
        let tx = self.store.transaction()?;
        sign_in::clear_failures(&tx, &by_name)?;
        sign_in::insert_session(
            &tx,
            &token_hash(&token),
            person.annotator_id,
            now,
            expires_at,
        )?;
        tx.commit()?;
        Ok(Session {
            token,
            role: role_of(&person.role),
            expires_at,
        })
    }

    /// The person a bearer token stands for, checked on every request: `Unauthorized`
    /// when the token is unknown, expired, or its holder was disabled.
    pub fn actor_for_token(&self, token: &str) -> Result<Actor> {
        let now = self.clock.now_ms();
        sign_in::session_person(self.store.conn(), &token_hash(token), now)?
            .map(|p| Actor::person(&self.id, p.annotator_id, &p.name, role_of(&p.role)))
            .ok_or_else(|| unauthorized("this sign-in is unknown, expired or ended: sign in again"))
    }

    /// Ends the session of `token`; true when there was one.
    pub fn logout(&mut self, token: &str) -> Result<bool> {
        let tx = self.store.transaction()?;
        let ended = sign_in::delete_session(&tx, &token_hash(token))?;
        tx.commit()?;
        Ok(ended)
    }
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
