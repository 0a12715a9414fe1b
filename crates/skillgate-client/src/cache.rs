//! The interface cache: a validated document is reused only while the target identity, skill
//! id, skill version and interface digest all equal what the current card advertises.
//! In memory always; optionally on disk, where every file is validated again on load (digest
//! recomputed, full document validation) and anything unreadable or corrupt is ignored.

use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use skillgate_core::document::{Expectations, ValidatedDocument};
use skillgate_core::{jcs, Digest, Version};

use crate::steps::{Selection, Target};

/// Largest cache file read back (a document is far smaller; anything bigger is not ours).
pub(crate) const MAX_CACHE_FILE: u64 = 4 * 1024 * 1024;
/// Most cache files looked at for the previous document of a redeployed skill.
const MAX_PREVIOUS_SCAN: usize = 256;

/// Everything a cache entry is bound to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) struct CacheKey {
    /// URL the card was fetched from.
    pub card_url: String,
    /// URL of the selected interface.
    pub interface_url: String,
    /// Tenant of the selected interface (empty = none).
    pub tenant: String,
    /// Skill id.
    pub skill_id: String,
    /// Advertised skill version.
    pub skill_version: String,
    /// Advertised interface digest.
    pub interface_digest: String,
}

impl CacheKey {
    /// The key for a target and the selection made from its current card.
    pub(crate) fn new(target: &Target, selection: &Selection) -> Self {
        let (card_url, interface_url, tenant) = target.identity();
        Self {
            card_url,
            interface_url,
            tenant,
            skill_id: selection.skill_id.clone(),
            skill_version: selection.skill_version.clone(),
            interface_digest: selection.interface_digest.to_string(),
        }
    }

    fn file_name(&self) -> String {
        let v = serde_json::to_value(self).unwrap_or(Value::Null);
        let d = Digest::of_bytes(&jcs::to_canonical_vec(&v)).to_string();
        format!("{}.json", d.trim_start_matches("sha256:"))
    }

    /// Same agent, interface and skill, whatever the advertised version and digest.
    fn same_skill(&self, other: &CacheKey) -> bool {
        self.card_url == other.card_url
            && self.interface_url == other.interface_url
            && self.tenant == other.tenant
            && self.skill_id == other.skill_id
    }

    fn expectations(&self) -> Option<Expectations> {
        Some(Expectations {
            skill_id: Some(self.skill_id.clone()),
            skill_version: Some(self.skill_version.clone()),
            interface_digest: Some(Digest::parse(&self.interface_digest).ok()?),
        })
    }
}

/// Where a cached document came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheHit {
    /// This process validated it earlier.
    Memory,
    /// Read from the cache directory and validated again just now.
    Disk,
}

/// The interface cache.
#[derive(Debug, Default)]
pub(crate) struct Cache {
    memory: Mutex<HashMap<CacheKey, ValidatedDocument>>,
    dir: Option<PathBuf>,
}

impl Cache {
    /// A cache, on disk under `dir` when given.
    pub(crate) fn new(dir: Option<PathBuf>) -> Self {
        Self {
            memory: Mutex::new(HashMap::new()),
            dir,
        }
    }

    /// The document bound to exactly this key, if one is cached and (from disk) validates.
    pub(crate) fn get(&self, key: &CacheKey) -> Option<(ValidatedDocument, CacheHit)> {
        if let Ok(m) = self.memory.lock() {
            if let Some(doc) = m.get(key) {
                return Some((doc.clone(), CacheHit::Memory));
            }
        }
        let doc = self.load(key)?;
        if let Ok(mut m) = self.memory.lock() {
            m.insert(key.clone(), doc.clone());
        }
        Some((doc, CacheHit::Disk))
    }

    fn load(&self, key: &CacheKey) -> Option<ValidatedDocument> {
        let path = self.dir.as_ref()?.join(key.file_name());
        load_file(&path, |stored| stored == key)
    }

    /// The document cached for the same agent, interface and skill under another digest (the
    /// skill was redeployed since), so the caller can say what the new version changed. From
    /// memory first (the highest version this process saw), else the most recently written
    /// file of the cache directory, validated again like any file read back.
    pub(crate) fn previous(&self, key: &CacheKey) -> Option<ValidatedDocument> {
        if let Ok(m) = self.memory.lock() {
            let found = m
                .iter()
                .filter(|(k, _)| k.same_skill(key) && k.interface_digest != key.interface_digest)
                .map(|(_, d)| d)
                .max_by_key(|d| version_order(d.skill_version()));
            if let Some(doc) = found {
                return Some(doc.clone());
            }
        }
        let dir = self.dir.as_ref()?;
        let mut files: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(dir)
            .ok()?
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
            // Bounded: a cache directory shared by many agents costs at most this many reads.
            .take(MAX_PREVIOUS_SCAN)
            .filter_map(|e| {
                let modified = e.metadata().ok()?.modified().ok()?;
                Some((modified, e.path()))
            })
            .collect();
        // Newest first: the entry written last is the version this user ran last.
        files.sort_by_key(|f| std::cmp::Reverse(f.0));
        files.into_iter().find_map(|(_, path)| {
            load_file(&path, |stored| {
                stored.same_skill(key) && stored.interface_digest != key.interface_digest
            })
        })
    }

    /// Remembers a validated document under its key (and on disk, best effort: a cache that
    /// cannot be written only costs a describe_skill next time). Returns the disk error, if any.
    pub(crate) fn put(
        &self,
        key: &CacheKey,
        doc: &ValidatedDocument,
    ) -> Result<(), CacheWriteError> {
        if let Ok(mut m) = self.memory.lock() {
            m.insert(key.clone(), doc.clone());
        }
        let Some(dir) = &self.dir else {
            return Ok(());
        };
        std::fs::create_dir_all(dir).map_err(|source| CacheWriteError::CreateDir {
            dir: dir.clone(),
            source,
        })?;
        let entry = json!({ "key": key, "skill_interface": doc.value() });
        let bytes = serde_json::to_vec_pretty(&entry).map_err(CacheWriteError::Encode)?;
        let path = dir.join(key.file_name());
        let tmp = dir.join(format!(".{}.{}.tmp", key.file_name(), std::process::id()));
        std::fs::write(&tmp, bytes).map_err(|source| CacheWriteError::Write {
            path: tmp.clone(),
            source,
        })?;
        std::fs::rename(&tmp, &path).map_err(|source| CacheWriteError::Write { path, source })
    }
}

/// Orders `Major.Minor` versions numerically: a longer digit string is a larger number (the
/// draft's versions have no leading zeros), so no part can overflow an integer.
fn version_order(v: &str) -> Option<(usize, String, usize, String)> {
    let v = Version::parse(v).ok()?;
    Some((
        v.major.len(),
        v.major.to_owned(),
        v.minor.len(),
        v.minor.to_owned(),
    ))
}

/// Reads one cache file back when its key is `wanted`: its document, never trusted as stored
/// (the digest is recomputed and the document fully validated against the key it names). The
/// key is looked at first, so a file for another skill costs no validation.
fn load_file(
    path: &std::path::Path,
    wanted: impl FnOnce(&CacheKey) -> bool,
) -> Option<ValidatedDocument> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_CACHE_FILE + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    if bytes.len() as u64 > MAX_CACHE_FILE {
        return None;
    }
    let value = jcs::parse_strict(&bytes).ok()?;
    let stored: CacheKey = serde_json::from_value(value.get("key")?.clone()).ok()?;
    if !wanted(&stored) {
        return None;
    }
    ValidatedDocument::from_value(value.get("skill_interface")?, &stored.expectations()?).ok()
}

/// Why [`Cache::put`] could not write an entry to disk. The entry is remembered in memory
/// all the same, so the error only means a later process describes the skill again.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CacheWriteError {
    /// The cache directory does not exist and cannot be created.
    #[error("cannot create {}: {source}", dir.display())]
    CreateDir {
        /// The cache directory.
        dir: PathBuf,
        /// The file system's reason.
        source: std::io::Error,
    },
    /// The entry could not be serialized (not expected for a validated document).
    #[error("{0}")]
    Encode(serde_json::Error),
    /// The entry's file (its temporary file, or the rename onto its final name) could not be
    /// written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file that could not be written.
        path: PathBuf,
        /// The file system's reason.
        source: std::io::Error,
    },
}
