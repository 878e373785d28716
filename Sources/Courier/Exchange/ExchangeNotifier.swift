import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Posts the request start and finish notifications on the main queue.
enum ExchangeNotifier {
    static func post(_ name: Notification.Name, request: URLRequest, error: (any Error)?) {
        DispatchQueue.main.async {
            var userInfo: [String: Any] = [CourierNotificationKey.request: request]
            if let error { userInfo[CourierNotificationKey.error] = error }
            NotificationCenter.default.post(name: name, object: nil, userInfo: userInfo)
        }
    }
}
