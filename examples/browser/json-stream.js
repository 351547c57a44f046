/**
 * The JSON values of a streamed answer (Octez's monitor services send one value after another,
 * without separators), whatever the chunks' boundaries: an async iterator over `body`, a
 * `ReadableStream` of bytes. Objects and arrays only, as the monitor services send.
 */
export async function* jsonValues(body) {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let text = "";
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = 0;
  let i = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      text += decoder.decode(value, { stream: true });
      for (; i < text.length; i++) {
        const c = text[i];
        if (inString) {
          if (escaped) escaped = false;
          else if (c === "\\") escaped = true;
          else if (c === '"') inString = false;
        } else if (c === '"') inString = true;
        else if (c === "{" || c === "[") {
          if (depth++ === 0) start = i;
        } else if ((c === "}" || c === "]") && --depth === 0) {
          yield JSON.parse(text.slice(start, i + 1));
        }
      }
      if (depth === 0) {
        text = "";
        i = 0;
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}
