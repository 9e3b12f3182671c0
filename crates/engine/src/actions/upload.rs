//! `upload <selector> <file…>`: the files of an `<input type=file>`.

use super::*;

impl Page<'_> {
    /// `upload <selector> <file…>`: sets the files of an `<input type=file>`.
    pub async fn upload(&self, selector: &str, files: &[String]) -> Result<Uploaded> {
        let mut paths = Vec::with_capacity(files.len());
        for file in files {
            let path = std::fs::canonicalize(file)
                .map_err(|_| EngineError::Invalid(format!("File not found: {file}")))?;
            paths.push(path.to_string_lossy().into_owned());
        }
        let (tab, _, timeout) = self.parts();
        let handle = self
            .session
            .locate_on(&tab, "upload", selector, timeout)
            .await?;
        let outcome = async {
            let kind = tab
                .guarded("upload", handle.call(FILE_INPUT_FN, &[], timeout))
                .await?;
            if kind.get(0).and_then(Value::as_str) != Some("file") {
                return Err(EngineError::Invalid(format!(
                    "Element '{selector}' is not an <input type=file>"
                )));
            }
            if paths.len() > 1 && kind.get(1).and_then(Value::as_bool) != Some(true) {
                return Err(EngineError::Invalid(format!(
                    "Element '{selector}' takes one file (no `multiple` attribute); got {}",
                    paths.len()
                )));
            }
            let params = dom::SetFileInputFilesParams {
                object_id: Some(handle.object_id.clone().into()),
                ..dom::SetFileInputFilesParams::new(paths.clone())
            };
            tab.guarded("upload", async {
                handle
                    .session
                    .call_within(params, timeout)
                    .await
                    .map_err(|e| handle.vanished(e))
            })
            .await?;
            Ok(Uploaded {
                uploaded: paths.len(),
                selector: selector.to_string(),
            })
        }
        .await;
        handle.release().await;
        outcome
    }
}
