public enum CourierVersion { public static let string = "0.1.0" }
