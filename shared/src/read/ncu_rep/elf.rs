//! The parts of an ELF-64 little-endian image (a cubin a report keeps) that `cubin.rs` uses:
//! the header's ABI version and flags and the section headers, read as the
//! System V ABI lays them out, every read failing with the absolute byte offset in the
//! report. `lines.rs` reads its line tables with its own copy of the section walk: the
//! viewer decodes line tables and not code, and keeping its reader as it was keeps the
//! release wasm within its budget (these fields cost it some 300 bytes).

/// Little-endian reads that fail with the absolute offset.
pub(super) struct Bytes<'a> {
    pub data: &'a [u8],
    /// The absolute offset of `data[0]` in the report.
    pub base: u64,
}

impl<'a> Bytes<'a> {
    pub fn slice(&self, at: usize, len: usize) -> Result<&'a [u8], String> {
        at.checked_add(len)
            .and_then(|end| self.data.get(at..end))
            .ok_or_else(|| {
                format!(
                    "byte {}: {len} bytes wanted, the ELF image ends at byte {}",
                    self.base + at as u64,
                    self.base + self.data.len() as u64
                )
            })
    }

    pub fn u8(&self, at: usize) -> Result<u8, String> {
        Ok(self.slice(at, 1)?[0])
    }

    pub fn u16(&self, at: usize) -> Result<u16, String> {
        let b = self.slice(at, 2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    pub fn u32(&self, at: usize) -> Result<u32, String> {
        let b = self.slice(at, 4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn u64(&self, at: usize) -> Result<u64, String> {
        let b = self.slice(at, 8)?;
        let mut le = [0u8; 8];
        le.copy_from_slice(b);
        Ok(u64::from_le_bytes(le))
    }
}

/// An ELF section header's fields the readers use.
pub(super) struct Section {
    /// `sh_type`.
    pub kind: u32,
    /// Where its bytes start in the image.
    pub offset: usize,
    /// How many bytes it has.
    pub size: usize,
    /// `sh_link`: the section a symbol table takes its names from.
    pub link: u32,
}

/// An ELF image's bytes and section headers.
pub(super) struct Image<'a> {
    pub bytes: Bytes<'a>,
    pub sections: Vec<Section>,
    /// `e_ident[EI_ABIVERSION]`.
    pub abi_version: u8,
    /// `e_flags`.
    pub flags: u32,
}

impl<'a> Image<'a> {
    /// The image `image` (at absolute offset `base`); `None` when it is shorter than an
    /// ELF-64 header, so has no sections.
    ///
    /// # Errors
    ///
    /// A message naming the byte offset where the image is not ELF-64 little-endian or
    /// its section headers do not fit.
    pub fn parse(image: &'a [u8], base: u64) -> Result<Option<Image<'a>>, String> {
        let b = Bytes { data: image, base };
        if image.len() < 64 {
            return Ok(None);
        }
        if b.slice(0, 4)? != b"\x7fELF" {
            return Err(format!("byte {base}: a module's image is not ELF"));
        }
        if b.slice(4, 2)? != [2, 1] {
            return Err(format!(
                "byte {}: a module's ELF image is not 64-bit little-endian",
                base + 4
            ));
        }
        let abi_version = b.u8(8)?;
        let flags = b.u32(0x30)?;
        let shoff = usize::try_from(b.u64(0x28)?).map_err(|e| e.to_string())?;
        let shentsize = usize::from(b.u16(0x3a)?);
        let shnum = usize::from(b.u16(0x3c)?);
        if shentsize < 64 {
            return Err(format!(
                "byte {}: ELF section headers of {shentsize} bytes",
                base + 0x3a
            ));
        }
        let mut sections = Vec::with_capacity(shnum.min(image.len() / 64));
        for i in 0..shnum {
            let at = shoff + i * shentsize;
            sections.push(Section {
                kind: b.u32(at + 4)?,
                offset: usize::try_from(b.u64(at + 0x18)?).map_err(|e| e.to_string())?,
                size: usize::try_from(b.u64(at + 0x20)?).map_err(|e| e.to_string())?,
                link: b.u32(at + 0x28)?,
            });
        }
        Ok(Some(Image {
            bytes: b,
            sections,
            abi_version,
            flags,
        }))
    }

    /// The bytes of section `s`.
    ///
    /// # Errors
    ///
    /// A message naming the byte offset where the section runs past the image.
    pub fn data(&self, s: &Section) -> Result<&'a [u8], String> {
        self.bytes.slice(s.offset, s.size)
    }
}
