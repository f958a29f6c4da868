"""Names of :mod:`rrmap.analysis`, each imported from its module on first use
(see ``rrmap._util.lazy``)."""

from . import checks, folder, result, run
from .folder import OUTPUT_FILES, existing_outputs
from .result import AnalysisResult, file_sha256, load_result
from .run import analyze
