"""One immutable settings object, resolved once by `load_settings(repo, **flags)`: CLI flags >
environment variables > `.repofix.toml` / `[tool.repofix]` in pyproject.toml (of the target repository)
> the user's own config file > defaults. Every source is coerced and checked the same way; the value
"none" removes an optional setting (`--max-cost none`: no cost cap).

The repository is untrusted: its config may state project facts only (`REPO_SETTINGS`: how to run its
tests). Everything else in it (model, endpoints, credentials, sandbox and limits, setup commands, guard
allowances, image, ...) is ignored with a one-line notice, unless the user opts in with
`--trust-repo-config` (or REPOFIX_TRUST_REPO_CONFIG=1). One rule, `load_settings`, for local runs and CI."""

from repofix.config.environment import (
    DEFAULT_IMAGE,
    docker_image,
    env,
    env_flag,
    git_identity,
    git_remote,
    github_backoff_scale,
    home_dir,
    ray_state_dir,
    scratch_dir,
)
from repofix.config.load import load_settings, user_config_file
from repofix.config.settings import (
    ENV_PREFIX,
    REPO_SETTINGS,
    SECTIONS,
    TRUST_ENV,
    UNSET,
    ModelCall,
    SandboxLimits,
    Settings,
    SettingsError,
    settings_from_record,
    with_flags,
)

__all__ = [
    "DEFAULT_IMAGE",
    "ENV_PREFIX",
    "REPO_SETTINGS",
    "SECTIONS",
    "TRUST_ENV",
    "UNSET",
    "ModelCall",
    "SandboxLimits",
    "Settings",
    "SettingsError",
    "docker_image",
    "env",
    "env_flag",
    "git_identity",
    "git_remote",
    "github_backoff_scale",
    "home_dir",
    "load_settings",
    "ray_state_dir",
    "scratch_dir",
    "settings_from_record",
    "user_config_file",
    "with_flags",
]
