package io.s3broadcast.s3;

/** ETags as S3 and proxies write them: quoted or not, sometimes weak ({@code W/"..."}). */
final class ETags {

    private ETags() {
    }

    /** The ETag's value without quotes or a weak marker, so that two spellings of one ETag compare equal. */
    static String unquote(String eTag) {
        String t = eTag.trim();
        if (t.startsWith("W/")) {
            t = t.substring(2);
        }
        if (t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"")) {
            t = t.substring(1, t.length() - 1);
        }
        return t;
    }
}
