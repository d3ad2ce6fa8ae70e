import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import type { AppSetting } from '@medshare/contracts';
import { useEffect, useState } from 'react';
import { ScrollRegion } from '../../../components/ui/scroll-region';
import { ApiError } from '../../../lib/api-client';
import { forgetDisplaySettings, formatDateTime, useDisplaySettings } from '../../../lib/display-settings';
import { toast } from '../../../lib/notify';
import { addSetting } from '../api/add-setting';
import { deleteSetting } from '../api/delete-setting';
import { listSettings } from '../api/list-settings';
import { updateSetting } from '../api/update-setting';
import { isDisplaySetting } from '../utils/known-settings';
import { UNREACHABLE, fieldErrorsOf, toastSettingError, type SettingFieldErrors } from '../utils/setting-errors';
import { AddSettingRow } from './add-setting-row';
import { SettingRow, type SettingDraft } from './setting-row';

type Load = { status: 'loading' } | { status: 'error'; message: string } | { status: 'ready' };

const COLUMNS = ['Name', 'Value', 'Description', 'Created-at', 'Updated-at', 'Actions'] as const;

function loadErrorText(error: unknown): string {
  if (error instanceof ApiError && error.status === 403) return 'Only administrators can manage application settings.';
  if (error instanceof ApiError && error.status === 0) return UNREACHABLE;
  return error instanceof ApiError && error.message ? error.message : 'Settings could not be loaded.';
}

const byName = (a: AppSetting, b: AppSetting) => a.name.localeCompare(b.name);

export function SettingsPage() {
  const [load, setLoad] = useState<Load>({ status: 'loading' });
  const [settings, setSettings] = useState<AppSetting[]>([]);
  const [editingId, setEditingId] = useState<string | null>(null);
  const [editErrors, setEditErrors] = useState<SettingFieldErrors>({});
  const [saving, setSaving] = useState(false);
  const [adding, setAdding] = useState(false);
  const [addErrors, setAddErrors] = useState<SettingFieldErrors>({});
  const [confirmDelete, setConfirmDelete] = useState<AppSetting | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [unreachable, setUnreachable] = useState(false);
  const [displayVersion, setDisplayVersion] = useState(0);
  const display = useDisplaySettings(displayVersion);
  const formatDate = (iso: string) => formatDateTime(iso, display);

  useEffect(() => {
    const controller = new AbortController();
    listSettings(controller.signal)
      .then((result) => {
        setSettings([...result.data].sort(byName));
        setLoad({ status: 'ready' });
      })
      .catch((error: unknown) => {
        if (error instanceof DOMException && error.name === 'AbortError') return;
        console.error('Failed to fetch settings', error);
        setLoad({ status: 'error', message: loadErrorText(error) });
      });
    return () => controller.abort();
  }, []);

  const afterChange = (name: string) => {
    if (isDisplaySetting(name)) {
      forgetDisplaySettings();
      setDisplayVersion((v) => v + 1);
    }
  };

  const startEdit = (id: string) => {
    setEditingId(id);
    setEditErrors({});
  };

  const save = async (setting: AppSetting, draft: SettingDraft) => {
    setSaving(true);
    try {
      const result = await updateSetting(setting.id, {
        name: draft.name.trim(),
        value: draft.value,
        description: draft.description.trim() || null,
      });
      setSettings((list) => list.map((s) => (s.id === setting.id ? result.data : s)).sort(byName));
      setEditingId(null);
      setEditErrors({});
      toast.success(result.message ?? 'Setting updated');
      afterChange(result.data.name);
    } catch (error) {
      console.error('Failed to update setting', error);
      setEditErrors(fieldErrorsOf(error));
      toastSettingError(error, 'The setting could not be saved.');
    } finally {
      setSaving(false);
    }
  };

  const add = async (draft: SettingDraft): Promise<boolean> => {
    setAdding(true);
    try {
      const result = await addSetting({
        name: draft.name.trim(),
        value: draft.value,
        description: draft.description.trim() || null,
      });
      setSettings((list) => [...list, result.data].sort(byName));
      setAddErrors({});
      toast.success(result.message ?? 'Setting added');
      afterChange(result.data.name);
      return true;
    } catch (error) {
      console.error('Failed to add setting', error);
      setAddErrors(fieldErrorsOf(error));
      toastSettingError(error, 'The setting could not be added.');
      return false;
    } finally {
      setAdding(false);
    }
  };

  const remove = async (setting: AppSetting) => {
    setDeleting(true);
    try {
      const result = await deleteSetting(setting.id);
      setSettings((list) => list.filter((s) => s.id !== setting.id));
      toast.success(result.message ?? 'Setting deleted');
    } catch (error) {
      console.error('Failed to delete setting', error);
      if (error instanceof ApiError && error.status === 0) setUnreachable(true);
      else toastSettingError(error, 'The setting could not be deleted.');
    } finally {
      setDeleting(false);
      setConfirmDelete(null);
    }
  };

  if (load.status === 'loading') {
    return (
      <Box sx={{ display: 'grid', placeItems: 'center', minHeight: 200 }}>
        <CircularProgress aria-label="Loading settings" />
      </Box>
    );
  }
  if (load.status === 'error') return <Alert severity="error">{load.message}</Alert>;

  return (
    <>
      <Paper variant="outlined">
        <ScrollRegion label="Application settings">
          <Table size="small" sx={{ minWidth: 900 }}>
            <TableHead>
              <TableRow>
                {COLUMNS.map((column) => (
                  <TableCell key={column} scope="col" sx={{ fontWeight: 700, whiteSpace: 'nowrap' }}>
                    {column}
                  </TableCell>
                ))}
              </TableRow>
            </TableHead>
            <TableBody>
              {settings.length === 0 && (
                <TableRow>
                  <TableCell colSpan={COLUMNS.length} sx={{ color: 'text.secondary' }}>
                    No settings yet.
                  </TableCell>
                </TableRow>
              )}
              {settings.map((setting) => (
                <SettingRow
                  key={`${setting.id}-${editingId === setting.id ? 'edit' : 'view'}`}
                  setting={setting}
                  editing={editingId === setting.id}
                  saving={saving}
                  errors={editingId === setting.id ? editErrors : {}}
                  formatDate={formatDate}
                  onEdit={() => startEdit(setting.id)}
                  onCancel={() => {
                    setEditingId(null);
                    setEditErrors({});
                  }}
                  onSave={(draft) => void save(setting, draft)}
                  onDelete={() => setConfirmDelete(setting)}
                />
              ))}
              <AddSettingRow adding={adding} serverErrors={addErrors} onAdd={add} />
            </TableBody>
          </Table>
        </ScrollRegion>
      </Paper>

      <Dialog
        open={confirmDelete !== null}
        onClose={() => !deleting && setConfirmDelete(null)}
        aria-labelledby="delete-setting-title"
        aria-describedby="delete-setting-text"
      >
        <DialogTitle id="delete-setting-title">Delete setting?</DialogTitle>
        <DialogContent>
          <DialogContentText id="delete-setting-text">
            The setting <strong>{confirmDelete?.name}</strong> will be removed. This cannot be undone.
          </DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setConfirmDelete(null)} disabled={deleting}>
            Cancel
          </Button>
          <Button
            color="error"
            variant="contained"
            onClick={() => confirmDelete && void remove(confirmDelete)}
            disabled={deleting}
          >
            Delete
          </Button>
        </DialogActions>
      </Dialog>

      {/* Spec §8 asks for an alert with this text; an alert dialog says it accessibly. */}
      <Dialog
        open={unreachable}
        onClose={() => setUnreachable(false)}
        role="alertdialog"
        aria-labelledby="unreachable-title"
        aria-describedby="unreachable-text"
      >
        <DialogTitle id="unreachable-title">Connection problem</DialogTitle>
        <DialogContent>
          <DialogContentText id="unreachable-text">{UNREACHABLE}</DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button variant="contained" onClick={() => setUnreachable(false)} autoFocus>
            OK
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
}
