// Records the versions of thimni and glam that Cargo.lock resolved, for `thimni_scene --version` and its JSON.
use std::{env, fs, path::Path};

fn locked_version(lock: &str, name: &str) -> String {
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == format!("name = \"{name}\"") {
            if let Some(v) = lines.next() {
                if let Some(rest) = v.trim().strip_prefix("version = \"") {
                    return rest.trim_end_matches('"').to_string();
                }
            }
        }
    }
    "?".to_string()
}

fn main() {
    let dir = env::var("CARGO_MANIFEST_DIR").unwrap();
    let lock_path = Path::new(&dir).join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock_path.display());
    let lock = fs::read_to_string(&lock_path).unwrap_or_default();
    println!("cargo:rustc-env=THIMNI_VERSION={}", locked_version(&lock, "thimni"));
    println!("cargo:rustc-env=GLAM_VERSION={}", locked_version(&lock, "glam"));
}
