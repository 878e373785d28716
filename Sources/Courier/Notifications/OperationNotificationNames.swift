import Foundation

extension Notification.Name {
    /// Posted on the main queue when a ``URLConnectionOperation`` starts (or resumes) its transfer, while
    /// ``CourierNotifications/postsOperationNotifications`` is `true` (the default); the notification's object is
    /// the operation.
    public static let courierOperationDidStart = Notification.Name("CourierOperationDidStart")
    /// Posted on the main queue when a ``URLConnectionOperation`` finishes or pauses; the
    /// notification's object is the operation.
    public static let courierOperationDidFinish = Notification.Name("CourierOperationDidFinish")
}
