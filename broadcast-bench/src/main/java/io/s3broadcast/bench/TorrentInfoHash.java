package io.s3broadcast.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The info hash of a .torrent file: SHA-1 of the bencoded {@code info} dictionary, as trackers know it. */
final class TorrentInfoHash {

    private TorrentInfoHash() {
    }

    static String of(Path torrent) throws IOException {
        byte[] b = Files.readAllBytes(torrent);
        if (b.length == 0 || b[0] != 'd') {
            throw new IOException(torrent + " is not a bencoded dictionary");
        }
        int i = 1;
        while (i < b.length && b[i] != 'e') {
            int keyStart = i;
            i = skip(b, i);
            String key = new String(b, keyStart, i - keyStart, java.nio.charset.StandardCharsets.US_ASCII);
            int valueStart = i;
            i = skip(b, i);
            if (key.equals("4:info")) {
                try {
                    MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
                    sha1.update(b, valueStart, i - valueStart);
                    return HexFormat.of().formatHex(sha1.digest());
                } catch (NoSuchAlgorithmException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        throw new IOException(torrent + " has no info dictionary");
    }

    /** The index just after the bencoded value starting at {@code i}. */
    private static int skip(byte[] b, int i) throws IOException {
        if (i >= b.length) {
            throw new IOException("truncated bencoding");
        }
        switch (b[i]) {
            case 'i':
                while (b[i] != 'e') {
                    i++;
                }
                return i + 1;
            case 'l':
            case 'd':
                i++;
                while (b[i] != 'e') {
                    i = skip(b, i);
                }
                return i + 1;
            default:
                int colon = i;
                while (b[colon] != ':') {
                    colon++;
                }
                int length = Integer.parseInt(new String(b, i, colon - i, java.nio.charset.StandardCharsets.US_ASCII));
                return colon + 1 + length;
        }
    }
}
