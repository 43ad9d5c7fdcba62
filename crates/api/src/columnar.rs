//! Parquet files from Arrow record batches, for the raw answers and the Hugging Face
//! dataset. Written uncompressed: the crate is built without codecs to keep the build
//! small, and readers (pyarrow, `datasets`, the parquet crate) read plain pages.

use arrow_array::RecordBatch;
use parquet::arrow::ArrowWriter;

/// One Parquet file holding `batch`, in memory: the writer needs an owned, sendable sink,
/// and the staged outputs hand out a borrowed one.
pub(crate) fn parquet(batch: &RecordBatch) -> parquet::errors::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut bytes, batch.schema(), None)?;
    writer.write(batch)?;
    writer.close()?;
    Ok(bytes)
}
