//! The Rust embeddings against an independent numpy forward pass of the same model
//! (tests/reference_embeddings.py), computed at test time: no vector from the model is
//! committed. Needs the model (scripts/setup installs it) and python3 with numpy and
//! tokenizers; without them the test says so and passes, unless FACTDESK_REQUIRE_MODEL=1
//! (scripts/test-all sets it after scripts/setup) demands them.

use factdesk_semantic::{cosine, locate, Embedder, Locations};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn required() -> bool {
    std::env::var("FACTDESK_REQUIRE_MODEL").is_ok_and(|v| v == "1")
}

fn model_dir() -> Option<PathBuf> {
    match locate(None, &Locations::from_env()) {
        Ok(dir) => Some(dir),
        Err(e) => {
            assert!(!required(), "FACTDESK_REQUIRE_MODEL=1 but {e}");
            eprintln!("skipping: {e}");
            None
        }
    }
}

fn python_ready() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import numpy, tokenizers"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok || !required(),
        "FACTDESK_REQUIRE_MODEL=1 but python3 cannot import numpy and tokenizers"
    );
    ok
}

fn sentences() -> Vec<String> {
    let long = "The trial enrolled volunteers across many hospitals and followed them for \
                months, recording every admission, discharge and death. "
        .repeat(20);
    vec![
        "Masks reduce the spread of respiratory droplets.".to_string(),
        "A cat sat on the windowsill all afternoon.".to_string(),
        "Vaccination campaigns lowered hospital admissions among older adults in 2021.".to_string(),
        "Ärzte berichten über einen Rückgang der Fälle — naïve café résumé.".to_string(),
        "COVID-19 cases rose 12.5% (from 1,024 to 1,152) per https://example.org/data.".to_string(),
        String::new(),
        long,
    ]
}

#[test]
fn embeddings_match_the_numpy_reference() {
    let Some(dir) = model_dir() else { return };
    if !python_ready() {
        eprintln!("skipping: python3 with numpy and tokenizers is not available");
        return;
    }
    let texts = sentences();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let embedder = Embedder::load(&dir).unwrap_or_else(|e| panic!("{e}"));
    let ours = embedder.embed(&refs).unwrap_or_else(|e| panic!("{e}"));

    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/reference_embeddings.py");
    let mut child = Command::new("python3")
        .arg(&script)
        .arg(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("python3: {e}"));
    let input = serde_json::to_vec(&texts).unwrap_or_else(|e| panic!("{e}"));
    child
        .stdin
        .take()
        .map(|mut s| s.write_all(&input))
        .transpose()
        .unwrap_or_else(|e| panic!("{e}"));
    let out = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        out.status.success(),
        "reference failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: Vec<Vec<f64>> =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(theirs.len(), ours.len());
    for ((text, a), b) in texts.iter().zip(&ours).zip(&theirs) {
        assert_eq!(a.len(), 384);
        let worst = a
            .iter()
            .zip(b)
            .map(|(x, y)| (f64::from(*x) - y).abs())
            .fold(0.0, f64::max);
        assert!(worst < 2e-4, "{text:.40}: largest difference {worst}");
        let dot: f64 = a.iter().zip(b).map(|(x, y)| f64::from(*x) * y).sum();
        assert!(dot > 0.99999, "{text:.40}: cosine {dot}");
    }
    // Related sentences are nearer than unrelated ones: the vectors carry meaning.
    assert!(cosine(&ours[0], &ours[2]) > cosine(&ours[0], &ours[1]));
}

#[test]
fn batching_and_padding_do_not_change_an_embedding() {
    let Some(dir) = model_dir() else { return };
    let embedder = Embedder::load(&dir).unwrap_or_else(|e| panic!("{e}"));
    let texts = sentences();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let together = embedder.embed(&refs).unwrap_or_else(|e| panic!("{e}"));
    for (text, v) in refs.iter().zip(&together) {
        let alone = embedder.embed(&[text]).unwrap_or_else(|e| panic!("{e}"));
        let worst = v
            .iter()
            .zip(&alone[0])
            .map(|(x, y)| (x - y).abs())
            .fold(0.0f32, f32::max);
        assert!(worst < 1e-5, "{text:.40}: {worst}");
    }
    assert!(embedder.id().starts_with("all-MiniLM-L6-v2:"));
}

/// A regression test from a hostile pass: weights damaged here and there (every 997th
/// byte flipped) loaded, gave every text nearly the same embedding, and `rank` wrote a
/// ranking with every score 1. Such a model is now refused when it is loaded.
#[test]
fn a_model_with_damaged_weights_is_refused_when_loaded() {
    let Some(dir) = model_dir() else { return };
    let damaged = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{e}")) {
        let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
        if path.is_file() {
            let to = damaged.path().join(path.file_name().unwrap_or_default());
            std::fs::copy(&path, to).unwrap_or_else(|e| panic!("{e}"));
        }
    }
    let weights = damaged.path().join("model.safetensors");
    let mut bytes = std::fs::read(&weights).unwrap_or_else(|e| panic!("{e}"));
    // safetensors: an 8-byte length, that many bytes of JSON header, then the tensors.
    let header = 8 + u64::from_le_bytes(bytes[..8].try_into().unwrap_or_default()) as usize;
    for i in (header + 1000..bytes.len()).step_by(997) {
        bytes[i] ^= 0xFF;
    }
    std::fs::write(&weights, &bytes).unwrap_or_else(|e| panic!("{e}"));
    let Err(err) = Embedder::load(damaged.path()) else {
        panic!("damaged weights must be refused")
    };
    assert!(err.to_string().contains("its weights are damaged"), "{err}");
    // The sound model, loaded the same way, passes the same check.
    Embedder::load(&dir).unwrap_or_else(|e| panic!("{e}"));
}
