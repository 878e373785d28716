import Foundation

extension Notification.Name {
    /// Posted on the manager's completion queue (main by default) when a session task is resumed.
    /// `object` is the ``SessionTask``.
    public static let courierTaskDidResume = Notification.Name("CourierTaskDidResume")
    /// Posted on the manager's completion queue (main by default) when a session task is
    /// suspended. `object` is the ``SessionTask``.
    public static let courierTaskDidSuspend = Notification.Name("CourierTaskDidSuspend")
    /// Posted on the manager's completion queue (main by default) right after a task's completion
    /// handler. `object` is the ``SessionTask``; `userInfo` holds the keys of
    /// ``SessionNotificationKey`` that apply.
    public static let courierTaskDidComplete = Notification.Name("CourierTaskDidComplete")
    /// Posted on the manager's completion queue (main by default) before each retry of a task, before its delay is
    /// waited. `object` is the ``SessionTask``; `userInfo` holds ``SessionNotificationKey/retryNumber``,
    /// ``SessionNotificationKey/retryDelay`` and ``SessionNotificationKey/error``.
    public static let courierTaskWillRetry = Notification.Name("CourierTaskWillRetry")
}

/// Keys of the `userInfo` of ``Foundation/NSNotification/Name/courierTaskDidComplete``.
public enum SessionNotificationKey {
    /// The response body (`Data`) of a data or upload task.
    public static let responseData = "CourierSessionResponseData"
    /// The object the response serializer made of the body, when it made one.
    public static let serializedResponse = "CourierSessionSerializedResponse"
    /// The error the task completed with (transport, serializer or file move); in
    /// ``Foundation/NSNotification/Name/courierTaskWillRetry``, the failure that caused the retry.
    public static let error = "CourierSessionError"
    /// The downloaded file's final `URL`, for a download task.
    public static let downloadedFile = "CourierSessionDownloadedFile"
    /// The retry's number (`Int`, 1 for the first), in ``Foundation/NSNotification/Name/courierTaskWillRetry``.
    public static let retryNumber = "CourierSessionRetryNumber"
    /// The seconds before the retry (`TimeInterval`), in ``Foundation/NSNotification/Name/courierTaskWillRetry``.
    public static let retryDelay = "CourierSessionRetryDelay"
}
