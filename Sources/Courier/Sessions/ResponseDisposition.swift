/// What the data-task did-receive-response block decides, like
/// `URLSession.ResponseDisposition`.
public enum ResponseDisposition: Sendable, Equatable {
    /// Continue receiving the body. The default.
    case allow
    /// Cancel the task; it completes with `URLError(.cancelled)`.
    case cancel
    /// Hand the rest of the body to a new ``DownloadTask``: the did-become-download-task block
    /// sees both, the download task's blocks and completion follow, and the data task ends without
    /// a completion of its own.
    case becomeDownload
}
