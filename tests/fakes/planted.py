"""A fake home directory holding every credential file the default `readExclude` covers, and
a source file with one planted secret of each kind the masking recognises. Every value is
made up (never a real credential) and unique, so a test can assert that none of them appears
in any request body the model's emulator recorded."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

# kind → a value of it, planted in SOURCE.
PLANTED = {
    "aws-access-key": "AKIAQ3EGXAMPLEK7Z2WQ",
    "aws-secret": "pL4nt3dAwsS3cretV4lue0123456789abcdEFGHI",
    "github-token": "ghp_pL4nt3dGitHubT0ken0123456789abcdefGH",
    "gitlab-token": "glpat-pL4nt3dGitLabT0ken01",
    "slack-token": "xoxb-123456789012-1234567890123-pL4nt3dSl4ck0",
    "stripe-access-key": "sk_live_pL4nt3dStr1peKey01234567",
    "google-api-key": "AIzaSyPL4NT3DG00GLEk3y0123456789abcdefg",
    "anthropic-api-key": "sk-ant-api03-pL4nt3dAnthr0picKey0123456789",
    "openai-token": "sk-proj-pL4nt3dOpenAIabcdefghT3BlbkFJpL4nt3dOpenAI0123456",
    "password": "pL4nt3d-hunter2-Passw0rd",
    "private-key": "MIIEpL4nt3dPr1vateKeyB0dyLine0123456789abcdefABCDEF",
}
SOURCE = f'''"""Settings of the app."""

import os

DEBUG = False
AWS_ACCESS_KEY_ID = "{PLANTED["aws-access-key"]}"
AWS_SECRET_ACCESS_KEY = "{PLANTED["aws-secret"]}"
GITHUB_TOKEN = "{PLANTED["github-token"]}"
GITLAB = "{PLANTED["gitlab-token"]}"
SLACK_BOT = "{PLANTED["slack-token"]}"
STRIPE = "{PLANTED["stripe-access-key"]}"
GEMINI = "{PLANTED["google-api-key"]}"
CLAUDE = "{PLANTED["anthropic-api-key"]}"
OPENAI = "{PLANTED["openai-token"]}"
DB_PASSWORD = "{PLANTED["password"]}"
SIGNING_KEY = """-----BEGIN RSA PRIVATE KEY-----
{PLANTED["private-key"]}
-----END RSA PRIVATE KEY-----"""
TIMEOUT = 30
'''
# Lines of SOURCE holding no secret, and one that does (1-based).
PLAIN_LINE = "DEBUG = False"
SECRET_LINE = 7

# Values only the credential files hold (each must never be read at all).
CREDENTIALS = {
    ".netrc": "machine example.com login me password netrc-pL4nt3d-0001",
    "_netrc": "machine example.com password underscore-netrc-pL4nt3d-0002",
    ".npmrc": "//registry.npmjs.org/:_authToken=npmrc-pL4nt3d-0003",
    ".pypirc": "[pypi]\npassword = pypirc-pL4nt3d-0004",
    ".pgpass": "localhost:5432:db:me:pgpass-pL4nt3d-0005",
    ".git-credentials": "https://me:gitcred-pL4nt3d-0006@example.com",
    ".aws/credentials": "[default]\naws_secret_access_key = awsfile-pL4nt3d-0007",
    ".azure/accessTokens.json": '[{"accessToken": "azure-pL4nt3d-0008"}]',
    ".config/gcloud/application_default_credentials.json": '{"secret": "gcloud-pL4nt3d-0009"}',
    ".kube/config": "users:\n- user:\n    token: kube-pL4nt3d-0010",
    ".docker/config.json": '{"auths": {"x": {"auth": "docker-pL4nt3d-0011"}}}',
    ".ssh/id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----\nsshkey-pL4nt3d-0012\n",
    ".ssh/config": "Host x\n  IdentityFile sshconfig-pL4nt3d-0013",
    ".gnupg/private-keys-v1.d/key.key": "gnupg-pL4nt3d-0014",
    "infra/main.tfstate": '{"password": "tfstate-pL4nt3d-0015"}',
    "infra/prod.tfvars": 'db_password = "tfvars-pL4nt3d-0016"',
    ".terraformrc": 'credentials "app.terraform.io" { token = "terraformrc-pL4nt3d-0017" }',
    "credentials-prod.json": '{"secret": "credjson-pL4nt3d-0018"}',
    "service-account-ci.json": '{"private_key": "svcacct-pL4nt3d-0019"}',
    "release.keystore": "keystore-pL4nt3d-0020",
    "release.jks": "jks-pL4nt3d-0021",
    "cert.pfx": "pfx-pL4nt3d-0022",
    ".env": "API_TOKEN=dotenv-pL4nt3d-0023",
}


def every_value() -> list[str]:
    """Every planted value: the source file's and the credential files' (`-pL4nt3d-` marks
    the latter)."""
    return [*PLANTED.values(), *(f"pL4nt3d-{n:04d}" for n in range(1, len(CREDENTIALS) + 1))]


def make_home(home: Path, files: Iterable[str] = CREDENTIALS) -> Path:
    """Write the credential files under `home` (made), and `project/settings.py`, a source
    file with the planted secrets, with a plain `project/app.py` beside it. Returns `home`."""
    for name in files:
        path = home / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(CREDENTIALS[name] + "\n", encoding="utf-8")
    project = home / "project"
    project.mkdir(parents=True, exist_ok=True)
    (project / "settings.py").write_text(SOURCE, encoding="utf-8")
    (project / "app.py").write_text("from settings import TIMEOUT\n", encoding="utf-8")
    (home / "notes.txt").write_text("a note outside any repository\n", encoding="utf-8")
    return home


def leaked(bodies: Iterable[object]) -> list[str]:
    """The planted values that appear in any of `bodies` (recorded request bodies)."""
    text = "\n".join(json.dumps(body) for body in bodies)
    return [value for value in every_value() if value in text]
