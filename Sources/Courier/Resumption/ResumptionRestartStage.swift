import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Continues a partial download: asks for the rest with `Range` and `If-Range`, and when the answer does not fit the
/// kept bytes (a `206` of another range, length or validator; a `416` that does not prove them complete) asks once
/// more for the whole resource, without a range.
///
/// The final response's ``StageResponse/request`` still carries `Range` exactly when the range request stood.
struct ResumptionRestartStage: ExchangeStage {
    /// The kept bytes and what is known about them.
    let resumption: DownloadResumption

    /// Creates the stage.
    /// - Parameter resumption: The kept bytes and what is known about them.
    init(resumption: DownloadResumption) {
        self.resumption = resumption
    }

    /// Sends the range request of a resumption, and the whole request again when the answer does not fit the kept bytes.
    func respond(to request: StageRequest, next: Next) async throws -> StageResponse {
        var ranged = request
        ranged.urlRequest = resumption.applied(to: request.urlRequest)
        let response = try await next(ranged)
        guard resumption.canResume, resumption.outcome(of: response.head) == .mismatch else { return response }
        try await FollowUpRequest.abandon(response, sentBody: ranged.body)
        var whole = request
        whole.urlRequest = DownloadResumption.removed(from: request.urlRequest)
        return try await next(whole)
    }
}
