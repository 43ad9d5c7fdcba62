//! Writing the files a command produces without ever destroying or half-writing one.
//!
//! Every output is checked before anything is written: it may not be a Factdesk project
//! (judged by its content, not its name), an input of the command (the project file,
//! its journal files and search index, or a file being read), a folder, or named twice.
//! Each file is written to a temporary file in its own folder; [`Outputs::commit`] then
//! renames them all into place, and a failure before or during the renames leaves every
//! target as it was. The CLI and the app write reports and exports through this.

use crate::{Error, ErrorCode, Result};
use factdesk_store::{index_dir, is_project_file, sibling};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// What a command reads, which its outputs may not replace.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// (resolved path, what it is)
    files: Vec<(PathBuf, String)>,
    /// Folders whose contents are inputs (a project's search index).
    folders: Vec<(PathBuf, String)>,
}

impl Inputs {
    /// A project file with the files SQLite keeps beside it and its search index.
    pub fn project(path: &Path) -> Inputs {
        let mut inputs = Inputs::default();
        inputs
            .files
            .push((resolve(path), "the project file".into()));
        for (suffix, what) in [
            ("-wal", "the project's write-ahead log"),
            ("-shm", "the project's shared-memory file"),
            ("-journal", "the project's rollback journal"),
        ] {
            inputs
                .files
                .push((resolve(&sibling(path, suffix)), what.into()));
        }
        inputs.folders.push((
            resolve(&index_dir(path)),
            "inside the project's search index".into(),
        ));
        inputs
    }

    /// Adds a file the command reads.
    pub fn file(mut self, path: &Path) -> Inputs {
        self.files.push((resolve(path), "an input file".into()));
        self
    }
}

/// `path` made absolute with symbolic links resolved, as far as it exists.
fn resolve(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            return rest.iter().rev().fold(real, |p, part| p.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

fn refused(message: String) -> Error {
    Error::new(ErrorCode::InvalidInput, message)
}

/// Refuses `target` as an output of a command reading `inputs`; writes nothing. A
/// Factdesk project or pack is never replaced, whatever its name.
pub fn check(target: &Path, inputs: &Inputs) -> Result<()> {
    check_files(target, inputs)?;
    if factdesk_store::pack_store::is_pack(target) {
        return Err(refused(format!(
            "{} is a Factdesk pack; writing there would destroy its answers. Choose another file for the output (nothing was written)",
            target.display()
        )));
    }
    Ok(())
}

/// [`check`] for a pack's results, which may replace an earlier results file (a pack),
/// never a project.
pub fn check_results(target: &Path, inputs: &Inputs) -> Result<()> {
    check_files(target, inputs)
}

/// Refuses an existing `target` unless `force`: commands that write one new file of the
/// user's naming (the raw answers) replace nothing they were not told to.
pub fn refuse_existing(target: &Path, force: bool) -> Result<()> {
    if !force && target.symlink_metadata().is_ok() {
        return Err(refused(format!(
            "{} already exists; pass --force to replace it (nothing was written)",
            target.display()
        )));
    }
    Ok(())
}

fn check_files(target: &Path, inputs: &Inputs) -> Result<()> {
    let shown = target.display();
    if target.is_dir() {
        return Err(refused(format!(
            "{shown} is a folder; give a file name for the output"
        )));
    }
    let real = resolve(target);
    let clash = inputs
        .files
        .iter()
        .find(|(p, _)| *p == real)
        .or_else(|| inputs.folders.iter().find(|(p, _)| real.starts_with(p)));
    if let Some((_, what)) = clash {
        return Err(refused(format!(
            "{shown} is {what}, an input of this command; choose another file for the output (nothing was written)"
        )));
    }
    if is_project_file(target) {
        return Err(refused(format!(
            "{shown} is a Factdesk project; writing there would destroy it. Choose another file for the output (nothing was written)"
        )));
    }
    // Only a regular file is ever replaced: a device or a pipe (as root, /dev/null) would
    // be swapped for a file.
    if let Ok(meta) = std::fs::metadata(target) {
        if !meta.is_file() {
            return Err(refused(format!(
                "{shown} is not a regular file; choose a file for the output (nothing was written)"
            )));
        }
    }
    if holds_database_log(target) {
        return Err(refused(format!(
            "{shown} is a database's write-ahead log or journal, which may hold saved answers; choose another file for the output (nothing was written)"
        )));
    }
    Ok(())
}

/// True for a SQLite write-ahead log (by its header) or the log, shared-memory file or
/// journal beside any Factdesk project: another project's answers may live there until
/// it is next opened.
fn holds_database_log(target: &Path) -> bool {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    for suffix in ["-wal", "-shm", "-journal"] {
        if let Some(base) = name.strip_suffix(suffix) {
            if is_project_file(&target.with_file_name(base)) {
                return true;
            }
        }
    }
    let mut head = [0u8; 4];
    let read = std::fs::File::open(target).and_then(|mut f| {
        use std::io::Read;
        f.read_exact(&mut head)
    });
    // The two magic numbers a WAL file starts with (big- and little-endian checksums).
    read.is_ok() && matches!(head, [0x37, 0x7f, 0x06, 0x82] | [0x37, 0x7f, 0x06, 0x83])
}

/// One output being written to its temporary file.
#[derive(Debug)]
struct Staged {
    target: PathBuf,
    real: PathBuf,
    writer: BufWriter<NamedTempFile>,
    /// The target's folder is created on commit when it is missing.
    create_folder: bool,
}

/// The outputs of one command, written all together or not at all.
#[derive(Debug)]
pub struct Outputs {
    inputs: Inputs,
    staged: Vec<Staged>,
}

impl Outputs {
    pub fn new(inputs: Inputs) -> Outputs {
        Outputs {
            inputs,
            staged: Vec::new(),
        }
    }

    /// Checks `target` and returns a writer for its content. Its folder must exist.
    pub fn file(&mut self, target: &Path) -> Result<&mut dyn Write> {
        self.stage(target, false)
    }

    /// As [`Outputs::file`], creating the target's folder on commit if it is missing.
    pub fn file_in_new_folder(&mut self, target: &Path) -> Result<&mut dyn Write> {
        self.stage(target, true)
    }

    /// Stages `bytes` as the content of `target`.
    pub fn bytes(&mut self, target: &Path, bytes: &[u8]) -> Result<()> {
        self.file(target)?
            .write_all(bytes)
            .map_err(|e| write_error(target, &e))
    }

    fn stage(&mut self, target: &Path, create_folder: bool) -> Result<&mut dyn Write> {
        check(target, &self.inputs)?;
        let real = resolve(target);
        if self.staged.iter().any(|s| s.real == real) {
            return Err(refused(format!(
                "{} is named twice as an output",
                target.display()
            )));
        }
        let folder = real
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        // A missing folder is created only on commit; until then the temporary file waits
        // in the nearest folder that exists, on the same disk.
        let mut home = folder.as_path();
        while create_folder && !home.is_dir() {
            home = home.parent().unwrap_or(Path::new("/"));
        }
        if !home.is_dir() {
            return Err(Error::new(
                ErrorCode::NotFound,
                format!(
                    "cannot write {}: the folder {} does not exist",
                    target.display(),
                    folder.display()
                ),
            ));
        }
        let name = real
            .file_name()
            .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".partial");
        // Outputs are shared files (a report, a dataset), not secrets: created as any
        // file is (0666 less the umask), not with a temporary file's 0600.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let temp = builder
            .tempfile_in(home)
            .map_err(|e| write_error(target, &e))?;
        self.staged.push(Staged {
            target: target.to_path_buf(),
            real,
            writer: BufWriter::new(temp),
            create_folder,
        });
        let last = self.staged.len() - 1;
        Ok(&mut self.staged[last].writer)
    }

    /// Moves every output into place; on any failure, the targets are left as they were
    /// and the temporary files are removed. Returns the paths written, in order.
    pub fn commit(self) -> Result<Vec<PathBuf>> {
        let mut ready = Vec::with_capacity(self.staged.len());
        for s in self.staged {
            let target = s.target;
            let temp = s
                .writer
                .into_inner()
                .map_err(|e| write_error(&target, e.error()))?;
            temp.as_file()
                .sync_all()
                .map_err(|e| write_error(&target, &e))?;
            ready.push((target, s.real, temp, s.create_folder));
        }
        let mut created_folders = Vec::new();
        let mut done: Vec<Placed> = Vec::new();
        for (target, real, temp, create_folder) in ready {
            let placed = place(&real, temp, create_folder, &mut created_folders);
            match placed {
                Ok(p) => done.push(p),
                Err(e) => {
                    for p in done.into_iter().rev() {
                        p.undo();
                    }
                    for folder in created_folders.iter().rev() {
                        let _ = std::fs::remove_dir(folder);
                    }
                    return Err(write_error(&target, &e));
                }
            }
        }
        Ok(done.into_iter().map(Placed::finish).collect())
    }
}

/// An output moved into place, with what it replaced kept until every output is placed.
#[derive(Debug)]
struct Placed {
    target: PathBuf,
    backup: Option<tempfile::TempPath>,
}

impl Placed {
    /// Puts back what was there before.
    fn undo(self) {
        match self.backup {
            Some(backup) => {
                let _ = backup.persist(&self.target);
            }
            None => {
                let _ = std::fs::remove_file(&self.target);
            }
        }
    }

    /// Drops the backup (removing its file) and returns the target.
    fn finish(self) -> PathBuf {
        self.target
    }
}

fn place(
    real: &Path,
    temp: NamedTempFile,
    create_folder: bool,
    created: &mut Vec<PathBuf>,
) -> std::io::Result<Placed> {
    if let Some(folder) = real.parent() {
        if create_folder && !folder.is_dir() {
            let mut missing = Vec::new();
            let mut f = folder;
            while !f.is_dir() {
                missing.push(f.to_path_buf());
                match f.parent() {
                    Some(p) => f = p,
                    None => break,
                }
            }
            std::fs::create_dir_all(folder)?;
            created.extend(missing.into_iter().rev());
        }
    }
    // The old file stays reachable under a temporary name until all outputs are placed.
    let backup = if real.is_file() {
        let folder = real.parent().unwrap_or(Path::new("."));
        let path = tempfile::Builder::new()
            .prefix(".replaced.")
            .tempfile_in(folder)?
            .into_temp_path();
        std::fs::remove_file(&path)?;
        if std::fs::hard_link(real, &path).is_err() {
            std::fs::copy(real, &path)?;
        }
        Some(path)
    } else {
        None
    };
    temp.persist(real).map_err(|e| e.error)?;
    Ok(Placed {
        target: real.to_path_buf(),
        backup,
    })
}

/// Why `target` could not be written, naming the file the person asked for: the
/// temporary file beside it is ours, and a message naming it would point at a file they
/// never typed (tempfile adds its path to its errors).
fn write_error(target: &Path, e: &std::io::Error) -> Error {
    let mut why = e.to_string();
    if let Some(at) = why.find(" at path ") {
        why.truncate(at);
    }
    if why.contains(".partial") || why.contains(".replaced.") {
        why = e.kind().to_string();
    }
    Error::new(
        ErrorCode::Io,
        format!("cannot write {}: {why}", target.display()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn must<T, E: std::fmt::Display>(r: std::result::Result<T, E>) -> T {
        r.unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_failed_write_names_the_file_asked_for_not_the_temporary_one() {
        // Nobody may create files in /proc, not even root: the temporary file fails.
        let target = Path::new("/proc/gold.jsonl");
        let mut out = Outputs::new(Inputs::default());
        let e = out
            .bytes(target, b"x")
            .err()
            .unwrap_or_else(|| panic!("/proc takes no new files"));
        assert!(
            e.message.starts_with("cannot write /proc/gold.jsonl: "),
            "{}",
            e.message
        );
        assert!(!e.message.contains("partial"), "{}", e.message);
        assert!(!e.message.contains(" at path "), "{}", e.message);
    }

    #[test]
    fn all_outputs_appear_together_or_none_does() {
        let dir = must(tempfile::tempdir());
        let a = dir.path().join("a.txt");
        let b = dir.path().join("b.txt");
        must(std::fs::write(&b, "old b"));
        let mut out = Outputs::new(Inputs::default());
        must(out.bytes(&a, b"new a"));
        must(out.bytes(&b, b"new b"));
        drop(out);
        assert!(!a.exists());
        assert_eq!(must(std::fs::read_to_string(&b)), "old b");
        let mut out = Outputs::new(Inputs::default());
        must(out.bytes(&a, b"new a"));
        must(out.bytes(&b, b"new b"));
        must(out.commit());
        assert_eq!(must(std::fs::read_to_string(&a)), "new a");
        assert_eq!(must(std::fs::read_to_string(&b)), "new b");
        let names: Vec<_> = must(std::fs::read_dir(dir.path())).collect();
        assert_eq!(names.len(), 2, "temporary files left behind");
    }

    #[test]
    fn a_failed_rename_puts_back_what_was_there() {
        let dir = must(tempfile::tempdir());
        let a = dir.path().join("a.txt");
        let blocked = dir.path().join("new").join("b.txt");
        must(std::fs::write(&a, "old a"));
        let mut out = Outputs::new(Inputs::default());
        must(out.bytes(&a, b"new a"));
        must(out.file_in_new_folder(&blocked))
            .write_all(b"b")
            .unwrap_or_default();
        // A file where the folder should be created makes the second output fail.
        must(std::fs::write(dir.path().join("new"), "in the way"));
        assert!(out.commit().is_err());
        assert_eq!(must(std::fs::read_to_string(&a)), "old a");
    }

    #[test]
    fn a_pipe_or_another_databases_log_is_never_replaced() {
        let dir = must(tempfile::tempdir());
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(matches!(made, Ok(s) if s.success()), "mkfifo");
        let e = check(&fifo, &Inputs::default()).err();
        assert!(e.is_some_and(|e| e.message.contains("not a regular file")));
        let wal = dir.path().join("other.fdesk-wal");
        must(std::fs::write(&wal, [0x37, 0x7f, 0x06, 0x82, 0, 0, 0, 1]));
        let e = check(&wal, &Inputs::default()).err();
        assert!(e.is_some_and(|e| e.message.contains("write-ahead log")));
        assert_eq!(
            must(std::fs::read(&wal)),
            [0x37, 0x7f, 0x06, 0x82, 0, 0, 0, 1]
        );
        let plain = dir.path().join("plain.jsonl");
        must(std::fs::write(&plain, "old"));
        assert!(check(&plain, &Inputs::default()).is_ok());
    }

    #[test]
    fn an_output_named_twice_is_refused() {
        let dir = must(tempfile::tempdir());
        let a = dir.path().join("a.txt");
        let mut out = Outputs::new(Inputs::default());
        must(out.bytes(&a, b"1"));
        let err = out.bytes(&dir.path().join(".").join("a.txt"), b"2");
        assert!(err.is_err_and(|e| e.message.contains("named twice")));
    }
}
