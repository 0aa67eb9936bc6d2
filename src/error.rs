//! One error type for the whole engine; each variant maps to one `BLOSC2_ERROR_*` code.

use std::fmt;

/// An error from the Blosc2 engine.
///
/// Every variant has a fixed negative code, the value c-blosc2 3.3 uses for the
/// same condition (see [`Error::code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Error {
    /// Generic failure (`BLOSC2_ERROR_FAILURE`, -1).
    Failure,
    /// Bad stream (`BLOSC2_ERROR_STREAM`, -2).
    Stream,
    /// Invalid data (`BLOSC2_ERROR_DATA`, -3).
    Data,
    /// Memory allocation failed (`BLOSC2_ERROR_MEMORY_ALLOC`, -4).
    MemoryAlloc,
    /// Not enough space to read (`BLOSC2_ERROR_READ_BUFFER`, -5).
    ReadBuffer,
    /// Not enough space to write (`BLOSC2_ERROR_WRITE_BUFFER`, -6).
    WriteBuffer,
    /// Codec not supported (`BLOSC2_ERROR_CODEC_SUPPORT`, -7).
    CodecSupport,
    /// Invalid parameter for the codec (`BLOSC2_ERROR_CODEC_PARAM`, -8).
    CodecParam,
    /// Dictionary codec failure (`BLOSC2_ERROR_CODEC_DICT`, -9).
    CodecDict,
    /// Version not supported (`BLOSC2_ERROR_VERSION_SUPPORT`, -10).
    VersionSupport,
    /// Invalid value in the header (`BLOSC2_ERROR_INVALID_HEADER`, -11).
    InvalidHeader,
    /// Invalid parameter (`BLOSC2_ERROR_INVALID_PARAM`, -12).
    InvalidParam,
    /// File read failure (`BLOSC2_ERROR_FILE_READ`, -13).
    FileRead,
    /// File write failure (`BLOSC2_ERROR_FILE_WRITE`, -14).
    FileWrite,
    /// File open failure (`BLOSC2_ERROR_FILE_OPEN`, -15).
    FileOpen,
    /// Not found (`BLOSC2_ERROR_NOT_FOUND`, -16).
    NotFound,
    /// Bad running length (`BLOSC2_ERROR_RUN_LENGTH`, -17).
    RunLength,
    /// Filter pipeline error (`BLOSC2_ERROR_FILTER_PIPELINE`, -18).
    FilterPipeline,
    /// Chunk insert failure (`BLOSC2_ERROR_CHUNK_INSERT`, -19).
    ChunkInsert,
    /// Chunk append failure (`BLOSC2_ERROR_CHUNK_APPEND`, -20).
    ChunkAppend,
    /// Chunk update failure (`BLOSC2_ERROR_CHUNK_UPDATE`, -21).
    ChunkUpdate,
    /// Sizes larger than 2 GiB not supported (`BLOSC2_ERROR_2GB_LIMIT`, -22).
    TwoGbLimit,
    /// Super-chunk copy failure (`BLOSC2_ERROR_SCHUNK_COPY`, -23).
    SchunkCopy,
    /// Wrong type for frame (`BLOSC2_ERROR_FRAME_TYPE`, -24).
    FrameType,
    /// File truncate failure (`BLOSC2_ERROR_FILE_TRUNCATE`, -25).
    FileTruncate,
    /// Thread or thread context creation failure (`BLOSC2_ERROR_THREAD_CREATE`, -26).
    ThreadCreate,
    /// Postfilter failure (`BLOSC2_ERROR_POSTFILTER`, -27).
    Postfilter,
    /// Special frame failure (`BLOSC2_ERROR_FRAME_SPECIAL`, -28).
    FrameSpecial,
    /// Special super-chunk failure (`BLOSC2_ERROR_SCHUNK_SPECIAL`, -29).
    SchunkSpecial,
    /// IO plugin error (`BLOSC2_ERROR_PLUGIN_IO`, -30).
    PluginIo,
    /// Remove file failure (`BLOSC2_ERROR_FILE_REMOVE`, -31).
    FileRemove,
    /// Pointer is null (`BLOSC2_ERROR_NULL_POINTER`, -32).
    NullPointer,
    /// Invalid index (`BLOSC2_ERROR_INVALID_INDEX`, -33).
    InvalidIndex,
    /// Metalayer has not been found (`BLOSC2_ERROR_METALAYER_NOT_FOUND`, -34).
    MetalayerNotFound,
    /// Max buffer size exceeded (`BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED`, -35).
    MaxBufsizeExceeded,
    /// Tuner failure (`BLOSC2_ERROR_TUNER`, -36).
    Tuner,
    /// Frame lock failure (`BLOSC2_ERROR_LOCK`, -37).
    Lock,
}

/// Result alias used throughout the crate.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    const ALL: [Error; 37] = [
        Error::Failure,
        Error::Stream,
        Error::Data,
        Error::MemoryAlloc,
        Error::ReadBuffer,
        Error::WriteBuffer,
        Error::CodecSupport,
        Error::CodecParam,
        Error::CodecDict,
        Error::VersionSupport,
        Error::InvalidHeader,
        Error::InvalidParam,
        Error::FileRead,
        Error::FileWrite,
        Error::FileOpen,
        Error::NotFound,
        Error::RunLength,
        Error::FilterPipeline,
        Error::ChunkInsert,
        Error::ChunkAppend,
        Error::ChunkUpdate,
        Error::TwoGbLimit,
        Error::SchunkCopy,
        Error::FrameType,
        Error::FileTruncate,
        Error::ThreadCreate,
        Error::Postfilter,
        Error::FrameSpecial,
        Error::SchunkSpecial,
        Error::PluginIo,
        Error::FileRemove,
        Error::NullPointer,
        Error::InvalidIndex,
        Error::MetalayerNotFound,
        Error::MaxBufsizeExceeded,
        Error::Tuner,
        Error::Lock,
    ];

    /// The negative `BLOSC2_ERROR_*` code of this error.
    pub fn code(self) -> i32 {
        -(Self::ALL.iter().position(|e| *e == self).unwrap_or(0) as i32 + 1)
    }

    /// The error for a negative code (anything unknown maps to [`Error::Failure`]).
    pub fn from_code(code: i32) -> Error {
        if code < 0 && (-code as usize) <= Self::ALL.len() {
            Self::ALL[(-code - 1) as usize]
        } else {
            Error::Failure
        }
    }

    /// The message c-blosc2 prints for this error.
    pub fn message(self) -> &'static str {
        match self {
            Error::Failure => "Generic failure",
            Error::Stream => "Bad stream",
            Error::Data => "Invalid data",
            Error::MemoryAlloc => "Memory alloc/realloc failure",
            Error::ReadBuffer => "Not enough space to read",
            Error::WriteBuffer => "Not enough space to write",
            Error::CodecSupport => "Codec not supported",
            Error::CodecParam => "Invalid parameter supplied to codec",
            Error::CodecDict => "Codec dictionary error",
            Error::VersionSupport => "Version not supported",
            Error::InvalidHeader => "Invalid value in header",
            Error::InvalidParam => "Invalid parameter supplied to function",
            Error::FileRead => "File read failure",
            Error::FileWrite => "File write failure",
            Error::FileOpen => "File open failure",
            Error::NotFound => "Not found",
            Error::RunLength => "Bad run length encoding",
            Error::FilterPipeline => "Filter pipeline error",
            Error::ChunkInsert => "Chunk insert failure",
            Error::ChunkAppend => "Chunk append failure",
            Error::ChunkUpdate => "Chunk update failure",
            Error::TwoGbLimit => "Sizes larger than 2gb not supported",
            Error::SchunkCopy => "Super-chunk copy failure",
            Error::FrameType => "Wrong type for frame",
            Error::FileTruncate => "File truncate failure",
            Error::ThreadCreate => "Thread or thread context creation failure",
            Error::Postfilter => "Postfilter failure",
            Error::FrameSpecial => "Special frame failure",
            Error::SchunkSpecial => "Special super-chunk failure",
            Error::PluginIo => "IO plugin error",
            Error::FileRemove => "Remove file failure",
            Error::NullPointer => "Pointer is null",
            Error::InvalidIndex => "Invalid index",
            Error::MetalayerNotFound => "Metalayer has not been found",
            Error::MaxBufsizeExceeded => "Maximum buffersize exceeded",
            Error::Tuner => "Tuner failure",
            Error::Lock => "Frame lock failure",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message(), self.code())
    }
}

impl std::error::Error for Error {}

/// The first error that threads sharing one job ran into (the others are
/// dropped, as a serial run would have stopped at the first).
#[derive(Default)]
pub struct FirstError(std::sync::Mutex<Option<Error>>);

impl FirstError {
    /// Keep `e` unless an error was kept already.
    pub fn keep(&self, e: Error) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_or_insert(e);
    }

    /// `Err` with the kept error, if any.
    pub fn into_result(self) -> Result<()> {
        match self.0.into_inner().unwrap_or_else(|p| p.into_inner()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for (i, e) in Error::ALL.iter().enumerate() {
            assert_eq!(e.code(), -(i as i32) - 1);
            assert_eq!(Error::from_code(e.code()), *e);
        }
        assert_eq!(Error::CodecSupport.code(), -7);
        assert_eq!(Error::Tuner.code(), -36);
        assert_eq!(Error::Lock.code(), -37);
        assert_eq!(Error::from_code(5), Error::Failure);
    }
}
