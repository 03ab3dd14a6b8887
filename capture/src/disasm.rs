//! SASS text for a report's instructions from NVIDIA's disassembler: a report keeps each
//! kernel's code and its per-instruction figures, not the text ncu shows beside them.
//! [`Nvdisasm::find`] looks for `nvdisasm` (`--nvdisasm PATH`, then PATH, `$CUDA_HOME/bin`,
//! `/usr/local/cuda/bin`, then the `nvidia-cuda-nvdisasm` Python package of the `python3`
//! on PATH); [`Nvdisasm::give_text`] disassembles the code sections that hold the launches'
//! instructions ([`shared::read::ncu_rep::cubin`]) at their load addresses and joins the
//! text by address ([`shared::read::nvdisasm`]).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use shared::read::ncu_rep::cubin::CodeSection;
use shared::read::source::LaunchSource;

/// The one command that adds a disassembler where none is found.
pub const INSTALL: &str = "pip install nvidia-cuda-nvdisasm";

/// What is missing when no disassembler is found, and the command that adds it.
pub fn missing() -> String {
    format!(
        "nvdisasm (NVIDIA's disassembler, which gives a report's instructions their SASS text) \
         was not found: not on PATH, in $CUDA_HOME/bin, in /usr/local/cuda/bin or in python3's \
         packages; `{INSTALL}` adds it (or pass --nvdisasm PATH)"
    )
}

/// NVIDIA's disassembler on this host.
#[derive(Clone, Debug)]
pub struct Nvdisasm {
    /// The executable.
    pub path: PathBuf,
}

impl Nvdisasm {
    /// `explicit` (an error where it is not a file), else the first found of PATH,
    /// `$CUDA_HOME/bin`, `/usr/local/cuda/bin` and the `nvidia-cuda-nvdisasm` package of the
    /// `python3` on PATH (`nvidia/cu13/bin`, `nvidia/cuda_nvdisasm/bin`); `None` where none
    /// is.
    ///
    /// # Errors
    ///
    /// `explicit` is not a file.
    pub fn find(explicit: Option<&Path>) -> Result<Option<Nvdisasm>> {
        if let Some(p) = explicit {
            if !p.is_file() {
                bail!("nvdisasm not found at {} (--nvdisasm)", p.display());
            }
            return Ok(Some(Nvdisasm {
                path: p.to_path_buf(),
            }));
        }
        let on_path = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
            .unwrap_or_default();
        let cuda_home = std::env::var_os("CUDA_HOME").map(|h| PathBuf::from(h).join("bin"));
        let found = on_path
            .into_iter()
            .chain(cuda_home)
            .chain([PathBuf::from("/usr/local/cuda/bin")])
            .map(|d| d.join("nvdisasm"))
            .find(|p| p.is_file())
            .or_else(python_package);
        Ok(found.map(|path| Nvdisasm { path }))
    }

    /// Gives the instructions of `launches` without SASS text the text of their address,
    /// disassembling each section of `code` that holds one; how many were given text.
    ///
    /// # Errors
    ///
    /// The disassembler cannot be run, fails on a section, or prints what does not read.
    pub fn give_text(&self, code: &[CodeSection], launches: &mut [LaunchSource]) -> Result<usize> {
        let wanted: Vec<u64> = launches
            .iter()
            .flat_map(|l| l.instructions.iter())
            .filter(|i| i.sass.is_none())
            .map(|i| i.address)
            .collect();
        let mut text = BTreeMap::new();
        for section in code.iter().filter(|s| wanted.iter().any(|&a| s.holds(a))) {
            text.append(&mut self.disassemble(section)?);
        }
        Ok(shared::read::nvdisasm::give_text(launches, &text))
    }

    /// The instructions of one section, by address.
    fn disassemble(&self, section: &CodeSection) -> Result<BTreeMap<u64, String>> {
        let name = shared::text::escape::controls(&section.function).into_owned();
        let Some(sm) = section.sm else {
            bail!("{name}: its cubin's ELF flags name no SM version this tool knows");
        };
        let mut file = tempfile::Builder::new()
            .prefix("capture-code-")
            .suffix(".bin")
            .tempfile()
            .context("a temporary file for nvdisasm")?;
        file.write_all(&section.bytes)
            .and_then(|()| file.flush())
            .context("a temporary file for nvdisasm")?;
        let out = Command::new(&self.path)
            .arg("--binary")
            .arg(arch(sm))
            .arg("--base-address")
            .arg(format!("{:#x}", section.address))
            .arg(file.path())
            .output()
            .with_context(|| format!("cannot run {}", self.path.display()))?;
        if !out.status.success() {
            bail!(
                "{} on {name} ({}, at {:#x}): {}",
                self.path.display(),
                arch(sm),
                section.address,
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        shared::read::nvdisasm::instructions(&String::from_utf8_lossy(&out.stdout))
            .with_context(|| format!("{} on {name}", self.path.display()))
    }
}

/// nvdisasm's name of the architecture of SM version `sm`: the arch-specific variant
/// (`SM90a`, a superset of `SM90`: wgmma, setmaxnreg) where nvdisasm 13.5 has one, so
/// that code built for either reads.
fn arch(sm: u32) -> String {
    let specific = matches!(sm, 90 | 100 | 101 | 103 | 110 | 120 | 121);
    format!("SM{sm}{}", if specific { "a" } else { "" })
}

/// `nvdisasm` of the `nvidia-cuda-nvdisasm` package of the `python3` on PATH, if installed.
fn python_package() -> Option<PathBuf> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import nvidia, sys; sys.stdout.write('\\n'.join(nvidia.__path__))",
        ])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .flat_map(|d| {
            ["cu13/bin/nvdisasm", "cuda_nvdisasm/bin/nvdisasm"].map(|p| Path::new(d).join(p))
        })
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::arch;

    #[test]
    fn arch_specific_variant_where_nvdisasm_has_one() {
        assert_eq!(arch(90), "SM90a");
        assert_eq!(arch(80), "SM80");
        assert_eq!(arch(120), "SM120a");
    }
}
