import Foundation

extension Notification.Name {
    /// Posted on the main queue when a Courier request starts its first network exchange, while
    /// ``RequestNotifications`` says they are posted (an enabled ``NetworkActivityIndicatorManager``, or
    /// `RequestNotifications.isEnabled = true`); by default they are not.
    ///
    /// Operations and session tasks both run on the shared exchange, so this one pair of
    /// notifications covers every request Courier makes. `userInfo[CourierNotificationKey.request]`
    /// holds the `URLRequest`; `object` is `nil`.
    public static let courierRequestDidStart = Notification.Name("CourierRequestDidStart")

    /// Posted on the main queue when a request that posted ``courierRequestDidStart`` has
    /// finished, successfully or not. `userInfo` carries the request and, on failure, the error
    /// under ``CourierNotificationKey/error``.
    public static let courierRequestDidFinish = Notification.Name("CourierRequestDidFinish")
}

/// Keys of the `userInfo` dictionaries of Courier's notifications.
public enum CourierNotificationKey {
    /// The `URLRequest` the notification is about.
    public static let request = "CourierNotificationRequest"
    /// The `Error` a request finished with, when it failed.
    public static let error = "CourierNotificationError"
}
