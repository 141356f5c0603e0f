package io.s3broadcast.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The one-line JSON summary every command ends with. */
public final class Json {

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .disable(SerializationFeature.INDENT_OUTPUT)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private Json() {
    }

    /** {@code value} as compact JSON on one line. */
    static String line(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the JSON summary: " + e.getMessage(), e);
        }
    }

    /** The last JSON line of a command's output file (a node's stdout), or null when there is none. */
    public static JsonNode lastLine(Path out) throws IOException {
        if (!Files.exists(out)) {
            return null;
        }
        List<String> lines = Files.readAllLines(out).stream().filter(l -> l.startsWith("{")).toList();
        return lines.isEmpty() ? null : MAPPER.readTree(lines.get(lines.size() - 1));
    }

    static ObjectMapper mapper() {
        return MAPPER;
    }
}
