/** Saves text or bytes the page holds as a file: Blob + <a download>, in a browser and in Electron alike. */
export function saveFile(name: string, mime: string, data: string | Uint8Array): void {
  const part: BlobPart = typeof data === 'string' ? data : (data.slice().buffer as ArrayBuffer);
  const url = URL.createObjectURL(new Blob([part], { type: mime || 'application/octet-stream' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  // The download has taken the URL by the next task; revoke later to be safe in slow hosts.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
