//! Which project, if any, the app opens as soon as it starts.

use std::ffi::OsString;
use std::path::PathBuf;

/// The first argument that is not a flag, else `FACTDESK_PROJECT`.
///
/// Flags are skipped because launchers add their own: WebKitWebDriver, for one, starts
/// the app with `--automation` before the arguments a test asks for.
pub fn project_path(
    args: impl IntoIterator<Item = OsString>,
    env: Option<OsString>,
) -> Option<PathBuf> {
    args.into_iter()
        .skip(1)
        .find(|a| !a.to_string_lossy().starts_with('-'))
        .or(env)
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn takes_the_first_positional_argument() {
        let got = project_path(args(&["app", "--automation", "/p/a.fdesk"]), None);
        assert_eq!(got, Some(PathBuf::from("/p/a.fdesk")));
    }

    #[test]
    fn falls_back_to_the_environment() {
        let got = project_path(args(&["app"]), Some("/p/b.fdesk".into()));
        assert_eq!(got, Some(PathBuf::from("/p/b.fdesk")));
        assert_eq!(project_path(args(&["app"]), Some("".into())), None);
        assert_eq!(project_path(args(&["app", "-v"]), None), None);
    }
}
