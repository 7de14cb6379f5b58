"""Token text read whole.

llama-cpp-python (0.3.x) reads at most 32 bytes of a token's text: `detokenize` gives a
longer piece back as nothing or as stale bytes of the token before. 379 tokens of the
bundled Gemma's vocabulary are longer, among them whole Bengali and Hindi words
("प्रधानमंत्री"), so an answer naming them lost them. `read_long_pieces` puts a
`detokenize` that asks again with room in its place, for every engine of the process.
"""

from __future__ import annotations

import ctypes


def piece(llama_cpp, vocab, token: int, buffer, special: bool = False):
    """(the token's text, the buffer, grown if the text did not fit)."""
    n = llama_cpp.llama_token_to_piece(vocab, token, buffer, len(buffer), 0, special)
    if n < 0:  # -n: the room the piece needs
        buffer = ctypes.create_string_buffer(-n)
        n = llama_cpp.llama_token_to_piece(vocab, token, buffer, len(buffer), 0, special)
    return buffer.raw[:n], buffer


def read_long_pieces() -> None:
    import llama_cpp
    from llama_cpp import _internals

    if getattr(_internals.LlamaModel.detokenize, "reads_long_pieces", False):
        return

    def detokenize(self, tokens, special: bool = False) -> bytes:
        buffer = ctypes.create_string_buffer(64)
        out = bytearray()
        for token in tokens:
            text, buffer = piece(llama_cpp, self.vocab, token, buffer, special)
            out += text
        output = bytes(out)
        # as llama-cpp-python does: no leading space after a beginning-of-sentence token
        return output[1:] if tokens and tokens[0] == self.token_bos() and output[:1] == b" " else output

    detokenize.reads_long_pieces = True
    _internals.LlamaModel.detokenize = detokenize
