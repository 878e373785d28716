import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Exchange {
    /// Posts one of the request notifications about ``originalRequest`` on the main queue. The exchange decides at
    /// the start of its run whether it posts them (``RequestNotifications``), so that it posts both or neither.
    func postRequestNotification(_ name: Notification.Name, error: (any Error)?) {
        var userInfo: [String: any Sendable] = [CourierNotificationKey.request: originalRequest]
        if let error { userInfo[CourierNotificationKey.error] = error }
        CourierNotifier.post(name, object: nil, userInfo: userInfo, delivery: .mainQueue)
    }
}
