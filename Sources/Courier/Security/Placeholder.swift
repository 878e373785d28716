public enum SecurityPlaceholder {}
