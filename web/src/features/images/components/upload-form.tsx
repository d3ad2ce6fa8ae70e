import CloudUploadIcon from '@mui/icons-material/CloudUpload';
import FolderOpenIcon from '@mui/icons-material/FolderOpen';
import InsertDriveFileIcon from '@mui/icons-material/InsertDriveFile';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import type { UserListItem } from '@medshare/contracts';
import { ImageMessages, MAX_CAPTION_LENGTH } from '@medshare/contracts/constants';
import { useEffect, useId, useRef, useState, type DragEvent, type FormEvent, type MouseEvent } from 'react';
import type { Id } from 'react-toastify/unstyled';
import { toast, toastApiError } from '../../../lib/notify';
import { useUploadImage } from '../api/upload-image';
import { usePublicSettings } from '../../../lib/public-settings';
import { IMAGES_TOAST } from '../utils/toast-options';
import { ACCEPT_ATTRIBUTE, fileProblem, isPicture, uploadProblem } from '../utils/validate-upload';
import { type PickedFile, isZip, pickedFromDrop, pickedFromInput } from '../utils/import-sources';
import { PatientPicker } from './patient-picker';
import { StudyImport } from './study-import';

const UPLOAD_FALLBACK = 'Something went wrong while uploading.';

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** One file as today; several files, a folder or a .zip make a study import. */
const ACCEPT = `${ACCEPT_ATTRIBUTE},.zip,application/zip`;

/** A single file goes through the one-file form; anything else is a study import. */
const isSingleUpload = (files: File[]) => files.length === 1 && !isZip(files[0]!);

/**
 * Upload Medical Image (`docs/product.md` › Upload; its Validation rules and Messages and errors): file,
 * preview, caption, patient, real progress; several files, a folder or a .zip become a study import.
 */
export function UploadForm() {
  const { maxUploadMb, maxImportFiles } = usePublicSettings();
  const [picked, setPicked] = useState<PickedFile[] | null>(null);
  const upload = useUploadImage();
  const [file, setFile] = useState<File | null>(null);
  const [caption, setCaption] = useState('');
  const [patient, setPatient] = useState<UserListItem | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [dragging, setDragging] = useState(false);
  const [formKey, setFormKey] = useState(0);
  const inputRef = useRef<HTMLInputElement>(null);
  const controllerRef = useRef<AbortController | null>(null);
  const inputId = useId();
  const busy = progress !== null;

  // One object URL per chosen picture, revoked as soon as the choice changes.
  useEffect(() => {
    if (!file || !isPicture(file)) {
      setPreview(null);
      return;
    }
    const url = URL.createObjectURL(file);
    setPreview(url);
    return () => URL.revokeObjectURL(url);
  }, [file]);

  useEffect(() => () => controllerRef.current?.abort(), []);

  /** Toasts about what the form lacks: they go once the user fixes it, instead of lingering over the fields. */
  const problemToasts = useRef(new Set<Id>());
  function showProblem(reason: string) {
    problemToasts.current.add(toast.error(reason, IMAGES_TOAST));
  }
  function clearProblems() {
    for (const id of problemToasts.current) toast.dismiss(id);
    problemToasts.current.clear();
  }

  function choose(next: File | null) {
    if (!next) return;
    const reason = fileProblem(next, maxUploadMb);
    setProblem(reason);
    clearProblems();
    if (reason) {
      showProblem(reason);
      setFile(null);
      if (inputRef.current) inputRef.current.value = '';
      return;
    }
    setFile(next);
  }

  /** What the picker gave: one file for the form, or a study import. */
  function chooseFiles(files: File[]) {
    if (!files.length) return;
    if (isSingleUpload(files)) {
      choose(files[0]!);
      return;
    }
    clearProblems();
    setProblem(null);
    setPicked(pickedFromInput(files));
  }

  function onDrop(event: DragEvent<HTMLElement>) {
    event.preventDefault();
    setDragging(false);
    if (busy) return;
    // Entries must be taken now: the DataTransfer is emptied once the drop event returns.
    const entries = [...event.dataTransfer.items]
      .map((item) => item.webkitGetAsEntry?.() ?? null)
      .filter((entry): entry is FileSystemEntry => entry !== null);
    const files = [...event.dataTransfer.files];
    const oneFile = entries.length ? entries.length === 1 && entries[0]!.isFile : files.length === 1;
    if (oneFile && isSingleUpload(files)) {
      choose(files[0]!);
      return;
    }
    clearProblems();
    setProblem(null);
    if (!entries.length) {
      setPicked(pickedFromInput(files));
      return;
    }
    // A folder is walked before the import screen shows it; a huge one stops being walked past the limit.
    void pickedFromDrop(entries, maxImportFiles * 4 + 100).then(setPicked, () =>
      showProblem('The dropped folder could not be read.'),
    );
  }

  /** The same input picks a folder: webkitdirectory is set for this one click only. */
  function chooseFolder() {
    const input = inputRef.current;
    if (!input || busy) return;
    input.webkitdirectory = true;
    input.click();
  }

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    const reason = uploadProblem(file, caption, maxUploadMb);
    setProblem(reason);
    clearProblems();
    if (reason || !file) {
      showProblem(reason ?? ImageMessages.noFile);
      return;
    }
    const controller = new AbortController();
    controllerRef.current = controller;
    setProgress(0);
    try {
      const result = await upload(
        { file, caption: caption.trim(), patientId: patient?.id },
        (fraction) => setProgress(fraction),
        controller.signal,
      );
      if (result.duplicate) toast.info(result.message ?? ImageMessages.duplicate, IMAGES_TOAST);
      else toast.success(result.message ?? ImageMessages.uploaded, IMAGES_TOAST);
      setFile(null);
      setCaption('');
      setPatient(null);
      setProblem(null);
      setFormKey((k) => k + 1);
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') return;
      toastApiError(error, UPLOAD_FALLBACK, IMAGES_TOAST);
    } finally {
      setProgress(null);
      controllerRef.current = null;
    }
  }

  const percent = progress === null ? 0 : Math.round(progress * 100);

  if (picked) {
    return (
      <StudyImport
        picked={picked}
        onChooseOther={() => {
          setPicked(null);
          setFormKey((k) => k + 1);
        }}
      />
    );
  }

  return (
    <Paper
      component="form"
      noValidate
      onSubmit={onSubmit}
      variant="outlined"
      sx={{ p: { xs: 2, sm: 3 }, maxWidth: 760 }}
    >
      <Stack spacing={2.5}>
        <Box
          component="label"
          htmlFor={inputId}
          onClick={(event: MouseEvent<HTMLElement>) => {
            // A click on the zone picks files. The folder button's click on the input bubbles up
            // here too and must keep its webkitdirectory.
            if (inputRef.current && event.target !== inputRef.current) inputRef.current.webkitdirectory = false;
          }}
          onDragOver={(event: DragEvent<HTMLElement>) => {
            event.preventDefault();
            if (!busy) setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
          sx={{
            display: 'block',
            border: 2,
            borderStyle: 'dashed',
            borderColor: dragging ? 'primary.main' : 'divider',
            bgcolor: dragging ? 'action.hover' : 'background.default',
            borderRadius: 2,
            p: { xs: 2, sm: 3 },
            textAlign: 'center',
            cursor: busy ? 'default' : 'pointer',
            '&:focus-within': { outline: 2, outlineStyle: 'solid', outlineColor: 'primary.main', outlineOffset: 2 },
          }}
        >
          <CloudUploadIcon color="primary" sx={{ fontSize: 40 }} aria-hidden />
          <Typography sx={{ fontWeight: 600 }}>Drag and drop a file here, or click to choose one</Typography>
          <Typography variant="body2" color="text.secondary">
            {`JPEG, PNG, PDF or DICOM (.jpeg, .jpg, .png, .pdf, .dcm, .dicom), up to ${maxUploadMb} MB`}
          </Typography>
          <Typography variant="body2" color="text.secondary">
            A whole study: several DICOM files, a folder (a disc) or a .zip
          </Typography>
          <input
            key={formKey}
            ref={inputRef}
            id={inputId}
            type="file"
            multiple
            accept={ACCEPT}
            disabled={busy}
            aria-describedby={problem ? `${inputId}-problem` : undefined}
            onChange={(event) => {
              const files = [...(event.target.files ?? [])];
              event.target.webkitdirectory = false;
              chooseFiles(files);
            }}
            style={{ position: 'absolute', width: 1, height: 1, opacity: 0, overflow: 'hidden' }}
          />
        </Box>

        <Box>
          <Button variant="outlined" startIcon={<FolderOpenIcon />} onClick={chooseFolder} disabled={busy}>
            Choose a folder
          </Button>
        </Box>

        {problem && (
          <Alert severity="error" id={`${inputId}-problem`}>
            {problem}
          </Alert>
        )}

        {file && (
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center', minWidth: 0 }}>
            <InsertDriveFileIcon color="action" aria-hidden />
            <Typography sx={{ overflowWrap: 'anywhere' }}>
              <strong>{file.name}</strong> ({formatSize(file.size)})
            </Typography>
          </Stack>
        )}

        {preview && (
          <Box
            sx={{
              height: 400,
              bgcolor: 'grey.900',
              borderRadius: 2,
              display: 'flex',
              alignItems: 'center',
              justifyContent: 'center',
              overflow: 'hidden',
            }}
          >
            <Box
              component="img"
              src={preview}
              alt={`Preview of ${file?.name ?? 'the selected image'}`}
              sx={{ width: '100%', height: '100%', objectFit: 'contain' }}
            />
          </Box>
        )}

        <TextField
          label="Caption"
          value={caption}
          onChange={(event) => setCaption(event.target.value)}
          disabled={busy}
          required
          slotProps={{ htmlInput: { maxLength: MAX_CAPTION_LENGTH } }}
        />

        <PatientPicker value={patient} onChange={setPatient} disabled={busy} />

        {busy && (
          <Box>
            <LinearProgress
              variant="determinate"
              value={percent}
              aria-label="Upload progress"
              sx={{ height: 8, borderRadius: 1 }}
            />
            <Typography variant="body2" color="text.secondary" sx={{ mt: 0.5 }}>
              {`${percent}% uploaded`}
            </Typography>
          </Box>
        )}

        <Box>
          <Button type="submit" variant="contained" size="large" disabled={busy} startIcon={<CloudUploadIcon />}>
            {busy ? 'Uploading...' : 'Upload Image'}
          </Button>
        </Box>
      </Stack>
    </Paper>
  );
}
