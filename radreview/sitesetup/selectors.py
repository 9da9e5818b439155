"""What is set up on this site and what is not: the admins' checklist."""
from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db.models import F
from django.urls import reverse

from radreview.accounts import two_factor
from radreview.dicomnet import pacs
from radreview.dicomnet import selectors as dicom_selectors
from radreview.dicomnet.status import receiver_status
from radreview.dictation.listener import listener_running
from radreview.jobs.models import Job
from radreview.jobs.stages import label_of
from radreview.library.drafting import Drafting, drafting_available
from radreview.library.models import ReferenceStudy
from radreview.media import inventory
from workers.backends import describe

# The failed studies the checklist lists, the latest first: enough for a bad night; the
# worklist's "Failed" status filter finds the rest.
FAILED_LISTED = 20


@dataclass(frozen=True)
class Item:
    """One of the things a step lists (a failed study), with its link."""

    link: str
    link_label: str
    text: str


@dataclass(frozen=True)
class Step:
    key: str
    title: str
    done: bool
    state: str  # what is there now
    next_step: str  # what to do, or "" when nothing is needed
    link: str = ""
    link_label: str = ""
    optional: bool = False
    items: tuple[Item, ...] = ()


def _second_factor_step() -> Step:
    enrolled, admins = two_factor.local_admins_enrolled()
    have = f"local admins with an authenticator: {enrolled} of {admins}"
    if settings.ADMIN_TOTP_REQUIRED:
        return Step("admin_second_factor", "Second factor for admins", True,
                    f"required at sign-in; {have}", "")
    return Step("admin_second_factor", "Second factor for admins", False,
                f"off (RADREVIEW_ADMIN_TOTP_REQUIRED=0); {have}",
                "Warning: local admins sign in with a password alone, and an admin account "
                "manages users and reads every study. Remove RADREVIEW_ADMIN_TOTP_REQUIRED=0 "
                "from the environment (an authenticator is required by default) unless every "
                "admin signs in through the hospital's single sign-on.")


def _library_steps(drafting: Drafting) -> list[Step]:
    reports = ReferenceStudy.objects.count()
    return [
        Step("reference_reports", "Reference library (reports)", reports > 0,
             f"{reports:,} reference reports",
             "" if reports else "Import reference reports (e.g. the Indiana University set): "
             "they feed three-stage correction and the consistency judge.",
             reverse("admin:library_referencestudy_changelist"), "Reference studies"),
        Step("image_memory", "Image memory (reference images)", drafting.reference_images > 0,
             f"{drafting.reference_images:,} reference images",
             "" if drafting.reference_images else "Upload reference images with their reports "
             "(a ZIP file or a server folder): V-RAG, RA-RRG and the built-in report generator "
             "need them.", reverse("images:library"), "Reference library"),
    ]


def _role_steps(drafting: Drafting) -> list[Step]:
    steps = []
    for status in describe():
        builtin = status.spec == "builtin"
        done, state, next_step = True, f"{status.kind}: {status.model}", ""
        if status.load_error:
            done, next_step = False, f"Fix the setting {status.setting}: {status.load_error}"
        elif status.role == "generator" and builtin and not drafting.reference_images:
            done = False
            next_step = ("No report can be drafted from images: fill the image memory (above) or "
                         f"set {status.setting} to a vision-language model.")
        elif status.learned is False:
            next_step = (f"Optional: set {status.setting} to a BiomedCLIP folder for learned "
                         "image similarity (the built-in descriptor has no learned weights).")
        steps.append(Step(f"role_{status.role}", f"Model role: {status.role}", done, state,
                          next_step, reverse("modelroles:status"), "Model roles",
                          optional=builtin and done))
    return steps


def _dicom_steps() -> list[Step]:
    receiver = receiver_status()
    where = f"AE title {receiver.ae_title} on {receiver.host}:{receiver.port}"
    store = settings.PACS_STORE
    latest = dicom_selectors.latest_delivery()
    hl7_running = listener_running()
    store_state = "not configured"
    if store:
        store_state = f"{store['ae_title']}@{store['host']}:{store['port']}"
        if latest is not None:
            store_state += f"; last send: {latest.get_state_display().lower()}"
            if latest.last_error:
                store_state += f" ({latest.last_error})"
    return [
        Step("dicom_receiver", "DICOM receiver", receiver.running,
             f"running, {where}" if receiver.running else f"not running ({where})",
             "" if receiver.running else "Start it: scripts/run.sh starts it with the web server "
             "(in production run `manage.py run_dicom_receiver` as a service). Point the "
             "modality or PACS at this AE title, host and port."),
        Step("hl7_listener", "HL7 listener (reports from dictation)", hl7_running,
             f"{'running' if hl7_running else 'not running'} on "
             f"{settings.HL7_HOST}:{settings.HL7_PORT}",
             "" if hl7_running else "Start it: scripts/run.sh starts it with the web "
             "server (in production run `manage.py run_hl7_listener` as a service). Point the "
             "dictation system's or RIS's ORU^R01 interface at this host and port (docs/hl7.md)."),
        Step("pacs_destination", "PACS destination for signed reports (DICOM SR)", bool(store),
             store_state, "" if store else "Set RADREVIEW_PACS_STORE=AE_TITLE@host:port so signed "
             "reports go back to the PACS; until then they are only exported."),
        Step("pacs_import", "PACS for \"Import from PACS\" (DICOMweb)", pacs.configured(),
             settings.PACS_DICOMWEB_URL or "not configured",
             "" if pacs.configured() else "Set RADREVIEW_PACS_DICOMWEB_URL to the PACS's "
             "DICOMweb root (e.g. http://pacs:8042/dicom-web) so radiologists can import "
             "studies.", optional=True),
    ]


def _failed_studies_step() -> Step:
    """Studies whose pipeline stopped at a failed stage. Radiologists are told only that a step
    could not be finished and to tell their admin; the stage and its error are here."""
    failed = Job.objects.filter(state=Job.State.FAILED, study__isnull=False)
    count = failed.values("study").distinct().count()
    if not count:
        return Step("failed_studies", "Failed studies", True, "none", "")
    latest = failed.order_by(F("finished_at").desc(nulls_last=True), "-id")[:FAILED_LISTED]
    items = tuple(Item(reverse("studies:detail", args=[job.study_id]), f"Study #{job.study_id}",
                       f"{label_of(job.stage)} ({job.stage}) failed: {job.error}")
                  for job in latest)
    listed = f"; the {FAILED_LISTED} latest below" if count > FAILED_LISTED else ""
    return Step("failed_studies", "Failed studies", False,
                f"{count} stud{'y' if count == 1 else 'ies'} stopped at a failed step{listed}",
                "Put right what each error names (a setting, a model, a missing file or a "
                "`manage.py` command), then press Retry on the failed step of the study's page. "
                "Radiologists see only that the step could not be finished and that they should "
                "tell you.", reverse("studies:worklist") + "?status=failed",
                "All failed studies", items=items)


def _media_step() -> Step:
    """The last check of the media folder against the database (each worker's start, or
    ``manage.py media_files``)."""
    check = inventory.latest_check()
    if check is None:
        return Step("media_files", "Media files", False, "not checked yet",
                    "Start a worker: it checks the media folder against the database before it "
                    "takes work. Or run `manage.py media_files`.")
    state = (f"checked {check.checked_at:%Y-%m-%d %H:%M}: {check.files_seen:,} original files; "
             f"{check.studies_missing_files:,} studies with image files missing; "
             f"{check.unreferenced_files:,} files named by no study (kept)")
    advice = []
    if check.studies_missing_files:
        advice.append(f"{check.studies_missing_files:,} studies have image files missing "
                      f"({check.missing_files:,} files): restore them from the media backup "
                      "(`manage.py media_files` lists them).")
    if check.unreferenced_files:
        advice.append(f"{check.unreferenced_files:,} original files are named by no study or "
                      "upload: a database restored from before they arrived, or another "
                      "deployment's files. They are kept; `manage.py media_files` lists them and "
                      "can move them to a quarantine folder (docs/operations.md, \"Media "
                      "files\").")
    return Step("media_files", "Media files", not advice, state, " ".join(advice))


def checklist() -> list[Step]:
    drafting = drafting_available()
    return ([_second_factor_step()] + _library_steps(drafting) + _role_steps(drafting)
            + _dicom_steps() + [_media_step(), _failed_studies_step()])
