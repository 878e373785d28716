import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension SessionTask {
    /// Waits for the task to complete, running it in the calling task if it was never resumed; throws the
    /// task's error. Cancelling the calling Swift task cancels this task.
    func completion() async throws {
        await withTaskCancellationHandler {
            // A task nobody resumed runs here, in the caller's task; one already running is waited for.
            if await !runInCallingTask() { await waitUntilCompleted() }
        } onCancel: {
            cancel()
        }
        if let error { throw error }
    }

    /// The final response, once the task completed successfully (resuming a task that was never
    /// resumed). Throws the task's error; cancelling the calling Swift task cancels this task.
    public var completedResponse: HTTPURLResponse {
        get async throws {
            try await completion()
            guard let response = response as? HTTPURLResponse else {
                throw URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "The task completed without a response."])
            }
            return response
        }
    }
}

extension DataTask {
    /// The response body, once the task completed successfully (resuming a task that was never
    /// resumed): `try await task.value`. Throws the task's error; cancelling the calling Swift
    /// task cancels this task.
    public var value: Data {
        get async throws {
            try await completion()
            return responseData
        }
    }
}

extension DownloadTask {
    /// Where the file is, once the task completed successfully (resuming a task that was never
    /// resumed): the destination, or `nil` when there was none (the file was then removed).
    /// Throws the task's error; cancelling the calling Swift task cancels this task.
    public var value: URL? {
        get async throws {
            try await completion()
            return location
        }
    }
}
