//! Signing in: the limits on guessing and the password checked first, outside any
//! transaction (argon2 is slow on purpose), then the session written only while the
//! password hash checked is still the person's, so a reset or a disabling that lands in
//! between leaves no session opened with the old password.

use super::{
    address_blocked_at, address_subject, decoy_hash, device, free_at, known_subject,
    name_blocked_at, name_subject, next_check_at, pair_subject, random_bytes, sign_in_name,
    signed_in_subject, token_hash, unauthorized, verify_password, Session, SignInPolicy,
    KNOWN_ADDRESS_MS, MAX_PASSWORD_BYTES, NAME_MEMORY_MS,
};
use crate::annotators::Role;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_store::sign_in;

/// A sign-in whose password matched, not yet a session ([`Project::check_sign_in`]):
/// [`Project::open_session`] opens it only while the hash it was checked against is
/// still the person's.
pub struct CheckedSignIn {
    annotator_id: i64,
    role: Role,
    verified_hash: String,
    address: String,
    by_pair: String,
    by_name: String,
    by_address: String,
    known: String,
    signed_in: String,
    /// Checked with a device token that vouched: only its own failures were counted.
    by_device: bool,
    now: i64,
}

impl std::fmt::Debug for CheckedSignIn {
    // Never the hash, even in a log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckedSignIn")
            .field("annotator_id", &self.annotator_id)
            .field("role", &self.role)
            .finish_non_exhaustive()
    }
}

impl Project {
    /// Signs `name` in from `address` (what the front end knows of the caller, e.g. an
    /// IP address): a new session, or `Unauthorized` for a wrong name or password or a
    /// disabled person (the same message for all three), or `RateLimited` once the name
    /// failed too often from this address within the policy's window, or from anywhere
    /// past its budget and wait, or the address failed too often whatever the names (the
    /// last two unless the name signed in from this address before), whatever
    /// the password: a refused attempt checks no password. The attempt is recorded
    /// before the password is checked, in the transaction that counts the earlier ones,
    /// so simultaneous guesses cannot pass the limits; a success removes it.
    /// [`Project::check_sign_in`] then [`Project::open_session`].
    pub fn login(
        &mut self,
        name: &str,
        password: &str,
        address: &str,
        policy: &SignInPolicy,
    ) -> Result<Session> {
        self.login_from(name, password, address, None, policy)
    }

    /// [`Project::login`] with the device token an earlier sign-in gave back, if any.
    pub fn login_from(
        &mut self,
        name: &str,
        password: &str,
        address: &str,
        device: Option<&str>,
        policy: &SignInPolicy,
    ) -> Result<Session> {
        let checked = self.check_sign_in(name, password, address, device, policy)?;
        self.open_session(checked, policy)
    }

    /// The refusal a sign-in of `name` from `address` where it did not sign in before
    /// meets before any password is checked, if one would: the limit that ends last
    /// (failures of this name from this address, the spacing of a much-failed name's
    /// checks, failures of the name from anywhere, from the address, or the name's
    /// sign-ins a minute), named in the message, with the time until it ends in
    /// `retry_in_ms`.
    pub fn sign_in_refusal(
        &self,
        name: &str,
        address: &str,
        policy: &SignInPolicy,
    ) -> Result<Option<Error>> {
        let name = sign_in_name(name)?;
        let now = self.clock.now_ms();
        let conn = self.store.read();
        let since = now - policy.window_ms;
        let pair = sign_in::failure_times(conn, &pair_subject(name, address), since)?;
        let known = known_subject(name, address);
        let spacing = next_check_at(conn, name, now, policy)?.filter(|at| *at > now);
        let limits = [
            (
                free_at(
                    &pair,
                    policy.failures_per_name_and_address,
                    policy.window_ms,
                ),
                "failed sign-ins for this name from this address",
            ),
            (spacing, SPACED),
            (
                name_blocked_at(conn, name, &known, now, policy)?,
                "failed sign-ins for this name",
            ),
            (
                address_blocked_at(conn, address, now, policy)?,
                "failed sign-ins from this address",
            ),
            (
                signed_in_often(conn, name, now, policy)?,
                "sign-ins for this name in a minute",
            ),
        ];
        Ok(last_to_end(limits).map(|(free, what)| limited(free, now, what)))
    }

    /// Milliseconds until `name` may try again from `address`, while it is refused there
    /// ([`Project::sign_in_refusal`]).
    pub fn sign_in_blocked_ms(
        &self,
        name: &str,
        address: &str,
        policy: &SignInPolicy,
    ) -> Result<Option<i64>> {
        let refusal = self.sign_in_refusal(name, address, policy)?;
        Ok(refusal
            .and_then(|refused| refused.retry_in_ms)
            .map(i64::from))
    }

    /// The first half of [`Project::login`]: the limits, then the password, checked
    /// outside any transaction (argon2 is slow on purpose). With a device token that
    /// vouches for the person and whose person's token failures are not spent, the one
    /// limit is the name's sign-ins a minute, in place of the name's and the address's:
    /// a guesser behind the owner's address does not hold the owner.
    pub fn check_sign_in(
        &mut self,
        name: &str,
        password: &str,
        address: &str,
        device: Option<&str>,
        policy: &SignInPolicy,
    ) -> Result<CheckedSignIn> {
        let name = sign_in_name(name)?;
        let now = self.clock.now_ms();
        let since = now - policy.window_ms;
        let (by_name, by_pair) = (name_subject(name), pair_subject(name, address));
        let known = known_subject(name, address);
        let offered: Vec<&str> = device.into_iter().collect();
        let vouched = self
            .device_subject(name, &offered)?
            .map(|(_, subject)| subject);
        // A matched password, the failure it is counted under and whether a token vouched.
        let checked = |(annotator_id, role, verified_hash), counted, by_device| CheckedSignIn {
            annotator_id,
            role,
            verified_hash,
            address: address.to_string(),
            by_pair: counted,
            by_name: name_subject(name),
            by_address: address_subject(address),
            known: known_subject(name, address),
            signed_in: signed_in_subject(name),
            by_device,
            now,
        };
        let tx = self.store.transaction()?;
        sign_in::prune_failures(&tx, since)?;
        sign_in::prune_names(&tx, now - NAME_MEMORY_MS, now - KNOWN_ADDRESS_MS)?;
        if let Some(by_device) = vouched {
            // Read in the transaction that records this attempt, so simultaneous guesses
            // cannot pass: a front end passes on no spent token, so one spent here was
            // spent by a burst beside it, and is refused rather than checked as none
            // (which escaped the name's spacing; hostile check of session 34).
            let earlier = sign_in::failure_times(&tx, &by_device, since)?;
            let limit = policy.failures_per_name_and_address;
            let block = last_to_end([
                (
                    free_at(&earlier, limit, policy.window_ms),
                    "failed sign-ins with this person's devices",
                ),
                (
                    signed_in_often(&tx, name, now, policy)?,
                    "sign-ins for this name in a minute",
                ),
            ]);
            if let Some((free, whose)) = block {
                tx.commit()?;
                return Err(limited(free, now, whose));
            }
            sign_in::record_failure(&tx, &by_device, now)?;
            tx.commit()?;
            return self
                .verify(name, password)?
                .map(|verified| checked(verified, by_device, true))
                .ok_or_else(|| unauthorized("wrong name or password"));
        }
        let earlier = sign_in::failure_times(&tx, &by_pair, since)?;
        let pair = free_at(
            &earlier,
            policy.failures_per_name_and_address,
            policy.window_ms,
        );
        // A name that signed in from this address before gets past the address's
        // budget; its wrong password is then answered as any other name's there.
        let address_block = address_blocked_at(&tx, address, now, policy)?;
        let let_through =
            address_block.is_some() && sign_in::is_known(&tx, &known, now - KNOWN_ADDRESS_MS)?;
        // Of the limits that refuse, the one that ends last is said: the first found told
        // a name known here to come back while another still held it (hostile check of
        // session 35).
        let block = last_to_end([
            (pair, "failed sign-ins for this name from this address"),
            (
                name_blocked_at(&tx, name, &known, now, policy)?,
                "failed sign-ins for this name",
            ),
            (
                address_block.filter(|_| !let_through),
                "failed sign-ins from this address",
            ),
            (
                signed_in_often(&tx, name, now, policy)?,
                "sign-ins for this name in a minute",
            ),
        ]);
        if let Some(refused) = block {
            let (free, whose) = or_spacing(&tx, name, &known, now, policy, refused)?;
            tx.commit()?;
            return Err(limited(free, now, whose));
        }
        let by_address = address_subject(address);
        sign_in::record_failure(&tx, &by_address, now)?;
        sign_in::record_failure(&tx, &by_pair, now)?;
        sign_in::record_failure(&tx, &by_name, now)?;
        sign_in::record_name_failure(&tx, &by_name, now)?;
        tx.commit()?;
        match self.verify(name, password)? {
            Some(verified) => Ok(checked(verified, by_pair, false)),
            None => match address_block.filter(|_| let_through) {
                Some(free) => {
                    let (free, whose) = address_or_pair(free, earlier, now, policy);
                    Err(limited(free, now, whose))
                }
                // A disabled person's right password is as wrong as any other: the answer
                // must not confirm it.
                None => Err(unauthorized("wrong name or password")),
            },
        }
    }

    /// The person `name` is, their role and the hash checked, if `password` is theirs
    /// and they may sign in; a wrong name takes as long as a wrong password.
    fn verify(&self, name: &str, password: &str) -> Result<Option<(i64, Role, String)>> {
        let person = sign_in::by_name(self.store.read(), name)?;
        let stored = person
            .as_ref()
            .and_then(|p| p.password_hash.clone())
            .unwrap_or_else(decoy_hash);
        let matches = password.len() <= MAX_PASSWORD_BYTES && verify_password(password, &stored);
        Ok(match person {
            Some(p) if matches && p.password_hash.is_some() && !p.disabled => {
                Some((p.annotator_id, p.role, stored))
            }
            _ => None,
        })
    }

    /// The second half of [`Project::login`]: the session, written only if the password
    /// hash `checked` was verified against is still the person's and they are still
    /// enabled, checked in the statement that writes it. A reset or a disabling that
    /// committed while the password was being checked refuses the sign-in as a wrong
    /// password, and the attempt stays counted as a failure.
    pub fn open_session(
        &mut self,
        checked: CheckedSignIn,
        policy: &SignInPolicy,
    ) -> Result<Session> {
        let token: String = random_bytes::<32>()?
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let now = checked.now;
        let expires_at = now.saturating_add(policy.session_ms);
        let secret = factdesk_store::tx::secret(self.store.read())?;
        let device = device::issue(&secret, checked.annotator_id, &checked.verified_hash)?;
        let tx = self.store.transaction()?;
        // Checks that ran at once each found the minute's share unspent: the sessions
        // they open are counted here, one transaction at a time (30 sign-ins at once
        // opened 12 where 10 a minute are allowed; hostile check of session 35). The
        // password was right, so the attempt is not left counted as a failure.
        if let Some(free) = signed_in_often_as(&tx, &checked.signed_in, now, policy)? {
            clear_attempt(&tx, &checked, now)?;
            tx.commit()?;
            return Err(limited(free, now, "sign-ins for this name in a minute"));
        }
        let opened = sign_in::insert_session(
            &tx,
            &sign_in::NewSession {
                token_hash: &token_hash(&token),
                annotator_id: checked.annotator_id,
                address: &checked.address,
                now,
                expires_at,
                verified_hash: &checked.verified_hash,
            },
        )?;
        if !opened {
            // Dropping the transaction rolls it back; the attempt recorded by the check
            // stays a failure, as for any wrong password.
            return Err(unauthorized("wrong name or password"));
        }
        clear_attempt(&tx, &checked, now)?;
        sign_in::remember_known(&tx, &checked.known, now)?;
        sign_in::end_sessions_past(&tx, checked.annotator_id, policy.sessions_per_person)?;
        sign_in::record_failure(&tx, &checked.signed_in, now)?;
        tx.commit()?;
        Ok(Session {
            token,
            role: checked.role,
            expires_at,
            device,
            person: checked.annotator_id,
        })
    }
}

/// When `name` may sign in again, if it signed in its minute's share already: counted
/// from its successful sign-ins (kept apart from its sessions, which signing out ends),
/// so only someone with its password can use it up.
pub(super) fn signed_in_often(
    conn: &factdesk_store::Read,
    name: &str,
    now: i64,
    policy: &SignInPolicy,
) -> Result<Option<i64>> {
    signed_in_often_as(conn, &signed_in_subject(name), now, policy)
}

/// [`signed_in_often`] by the subject its sign-ins are counted under.
fn signed_in_often_as(
    conn: &factdesk_store::Read,
    signed_in: &str,
    now: i64,
    policy: &SignInPolicy,
) -> Result<Option<i64>> {
    const MINUTE_MS: i64 = 60_000;
    let opened = sign_in::failure_times(conn, signed_in, now - MINUTE_MS + 1)?;
    let share = usize::try_from(policy.sign_ins_per_name_a_minute).unwrap_or(usize::MAX);
    Ok(opened
        .len()
        .checked_sub(share)
        .and_then(|past| opened.get(past))
        .map(|&first| first + MINUTE_MS))
}

/// `refused` (when a refusal ends and what it counts), or the spacing of a much-failed
/// name's checks from an address it did not sign in from, whichever ends last. A front
/// end refuses such sign-ins before they reach the check; one that passed just before a
/// failure elsewhere made the spacing longer is told the spacing, so that waiting as told
/// is not refused again (hostile check of session 35).
fn or_spacing(
    conn: &factdesk_store::Read,
    name: &str,
    known: &str,
    now: i64,
    policy: &SignInPolicy,
    refused: (i64, &'static str),
) -> Result<(i64, &'static str)> {
    let spacing = match sign_in::is_known(conn, known, now - KNOWN_ADDRESS_MS)? {
        true => None,
        false => next_check_at(conn, name, now, policy)?,
    };
    let limits = [(Some(refused.0), refused.1), (spacing, SPACED)];
    Ok(last_to_end(limits).unwrap_or(refused))
}

/// A known name's wrong password at an address past its budget: the address's wait
/// (`free`), or the hold of the name there that this failure, added to `earlier`, may
/// have begun, whichever ends last.
fn address_or_pair(
    free: i64,
    mut earlier: Vec<i64>,
    now: i64,
    policy: &SignInPolicy,
) -> (i64, &'static str) {
    earlier.push(now);
    let limit = policy.failures_per_name_and_address;
    let from_address = "failed sign-ins from this address";
    let limits = [
        (Some(free), from_address),
        (
            free_at(&earlier, limit, policy.window_ms),
            "failed sign-ins for this name from this address",
        ),
    ];
    last_to_end(limits).unwrap_or((free, from_address))
}

/// Takes back what a check recorded as a failure before it knew the password right.
fn clear_attempt(tx: &factdesk_store::Tx<'_>, checked: &CheckedSignIn, now: i64) -> Result<()> {
    sign_in::clear_failures(tx, &checked.by_pair)?;
    // A device's check counted nothing against the name or the address.
    if !checked.by_device {
        sign_in::forget_attempt(tx, &checked.by_name, now)?;
        sign_in::forget_attempt(tx, &checked.by_address, now)?;
        sign_in::forget_name_failure(tx, &checked.by_name)?;
    }
    Ok(())
}

/// What the spacing of a much-failed name's checks counts, in a refusal's message.
pub(super) const SPACED: &str = "failed sign-ins for this name lately";

/// Of `limits` (when each ends, if it refuses, and what it counts), the one that ends
/// last.
fn last_to_end<const N: usize>(
    limits: [(Option<i64>, &'static str); N],
) -> Option<(i64, &'static str)> {
    limits
        .into_iter()
        .filter_map(|(free, what)| free.map(|free| (free, what)))
        .max_by_key(|(free, _)| *free)
}

/// `RateLimited`, free again at `free`; `what` completes "too many …".
pub(super) fn limited(free: i64, now: i64, what: &str) -> Error {
    let seconds = (free - now + 999) / 1000;
    let mut refused = Error::new(
        ErrorCode::RateLimited,
        format!("too many {what}; try again in {seconds} s"),
    );
    refused.retry_in_ms = Some(u32::try_from((free - now).max(0)).unwrap_or(u32::MAX));
    refused
}
