import Foundation

extension Notification.Name {
    /// Posted on the main queue when a ``URLConnectionOperation`` starts (or resumes) its transfer;
    /// the notification's object is the operation.
    public static let courierOperationDidStart = Notification.Name("CourierOperationDidStart")
    /// Posted on the main queue when a ``URLConnectionOperation`` finishes or pauses; the
    /// notification's object is the operation.
    public static let courierOperationDidFinish = Notification.Name("CourierOperationDidFinish")
}

enum OperationNotifier {
    /// Posts `name` with `operation` as the object, on the main queue.
    static func post(_ name: Notification.Name, _ operation: URLConnectionOperation) {
        DispatchQueue.main.async {
            NotificationCenter.default.post(name: name, object: operation)
        }
    }
}
