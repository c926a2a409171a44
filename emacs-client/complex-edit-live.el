;;; complex-edit-live.el --- The change so far, drawn while an edit runs  -*- lexical-binding: t; -*-

;;; Commentary:

;; The server's `complexEdit/preview' notifications (the package opts in with
;; `initializationOptions.livePreview' while `complex-edit-live-preview' is on), drawn:
;; - in each buffer the edit changes and the server has open (a preview with a version), as
;;   overlays: the text the change removes struck through, the new text after it.  Nothing is
;;   written, nothing goes to undo, point does not move; a preview for a version the buffer
;;   has left behind (you typed since) is not drawn.  The document's last preview (`done')
;;   clears them, and so does the end of the edit;
;; - for a file not visited (a preview with version null, its hunks on the text on disk), as
;;   a section of the `*complex-edit live*' buffer, in `diff-mode', redrawn as previews
;;   arrive; its header line says when the edit ended.

;;; Code:

(require 'cl-lib)
(require 'diff-mode)
(require 'complex-edit)

(defcustom complex-edit-live-preview t
  "When non-nil, draw the change so far while an edit runs.
In the buffers it changes (overlays, never written) and, for files not visited,
in the `*complex-edit live*' buffer.  Read when the server starts."
  :type 'boolean
  :group 'complex-edit)

(defconst complex-edit-live-buffer "*complex-edit live*"
  "The buffer showing the change so far in files not visited.")

(defvar complex-edit-live--buffers nil "Buffers with preview overlays.")
(defvar complex-edit-live--sections nil
  "The sections of `complex-edit-live-buffer': (URI . DIFF) each, in order.")
(defvar complex-edit-live--state nil "What the live buffer's header says: running or done.")

(defun complex-edit-live--clear (buffer)
  "Take the preview overlays off BUFFER."
  (when (buffer-live-p buffer)
    (with-current-buffer buffer
      (remove-overlays (point-min) (point-max) 'complex-edit-live t)))
  (setq complex-edit-live--buffers (delq buffer complex-edit-live--buffers)))

(defun complex-edit-live--region (hunk to-point)
  "The (START . END) of HUNK's range in the current buffer, with TO-POINT."
  (let ((range (plist-get hunk :range)))
    (save-restriction
      (widen)
      (cons (funcall to-point (plist-get range :start))
            (funcall to-point (plist-get range :end))))))

(defun complex-edit-live--draw (buffer hunks to-point)
  "Draw HUNKS (TO-POINT reads their positions) over BUFFER.
What was drawn there before goes."
  (with-current-buffer buffer
    (complex-edit-live--clear buffer)
    (push buffer complex-edit-live--buffers)
    (mapc (lambda (hunk)
            (let* ((region (complex-edit-live--region hunk to-point))
                   (overlay (make-overlay (car region) (cdr region) nil nil nil))
                   (new (or (plist-get hunk :newText) "")))
              (overlay-put overlay 'complex-edit-live t)
              (overlay-put overlay 'priority 5)
              (overlay-put overlay 'face 'complex-edit-review-old)
              (unless (string-empty-p new)
                (overlay-put overlay 'after-string
                             (propertize new 'face 'complex-edit-review-new)))))
          hunks)))

(defun complex-edit-live--lines (text)
  "TEXT's lines (a final newline ends the last one)."
  (split-string (string-remove-suffix "\n" text) "\n"))

(defun complex-edit-live--hunk-diff (hunk to-point delta)
  "HUNK as a unified diff hunk on the current buffer; DELTA: lines added before it.
Returns (TEXT . NEW-DELTA)."
  (let* ((region (complex-edit-live--region hunk to-point))
         (start (car region)) (end (cdr region))
         (bol (save-excursion (goto-char start) (line-beginning-position)))
         (eol (save-excursion
                (goto-char end)
                (if (and (bolp) (> end start)) end (min (point-max) (1+ (line-end-position))))))
         (old (buffer-substring-no-properties bol eol))
         (new (concat (buffer-substring-no-properties bol start) (or (plist-get hunk :newText) "")
                      (buffer-substring-no-properties end eol)))
         (old-lines (if (string-empty-p old) nil (complex-edit-live--lines old)))
         (new-lines (if (string-empty-p new) nil (complex-edit-live--lines new)))
         (line (line-number-at-pos bol t)))
    (cons (concat (format "@@ -%d,%d +%d,%d @@\n" line (length old-lines)
                          (+ line delta) (length new-lines))
                  (mapconcat (lambda (l) (concat "-" l "\n")) old-lines "")
                  (mapconcat (lambda (l) (concat "+" l "\n")) new-lines ""))
          (+ delta (- (length new-lines) (length old-lines))))))

(defun complex-edit-live--file-diff (uri hunks to-point)
  "The diff of HUNKS on the file at URI as it is on disk; TO-POINT reads positions."
  (let ((file (complex-edit--uri-file uri)))
    (with-temp-buffer
      (when (file-readable-p file)
        (insert-file-contents file))
      (let ((name (file-relative-name file))
            (delta 0)
            (sorted (sort (append hunks nil)
                          (lambda (a b)
                            (< (car (complex-edit-live--region a to-point))
                               (car (complex-edit-live--region b to-point)))))))
        (concat (format "diff a/%s b/%s\n--- a/%s\n+++ b/%s\n" name name name name)
                (mapconcat (lambda (hunk)
                             (let ((one (complex-edit-live--hunk-diff hunk to-point delta)))
                               (setq delta (cdr one))
                               (car one)))
                           sorted ""))))))

(defun complex-edit-live--redraw ()
  "Redraw `complex-edit-live-buffer' from the sections.
It is not popped up (a question in the minibuffer, a review, your windows stay
as they are): `M-x complex-edit-live' shows it."
  (with-current-buffer (get-buffer-create complex-edit-live-buffer)
    (let ((inhibit-read-only t))
      (erase-buffer)
      (dolist (section complex-edit-live--sections)
        (insert (cdr section))))
    (unless (derived-mode-p 'diff-mode)
      (diff-mode))
    (setq buffer-read-only t)
    (setq header-line-format
          (if (eq complex-edit-live--state 'done)
              "complex-edit: the edit ended; this was its last preview (the echo area says what landed)"
            "complex-edit: the change so far in files not visited (running…)"))
    (goto-char (point-min))))

;;;###autoload
(defun complex-edit-live ()
  "Show the change so far in files not visited (`*complex-edit live*')."
  (interactive)
  (complex-edit-live--redraw)
  (display-buffer complex-edit-live-buffer '(nil (inhibit-same-window . t))))

(defun complex-edit-live--show-file (uri hunks done to-point)
  "The preview of the file at URI (not open in the server): its section, redrawn."
  (when (eq complex-edit-live--state 'done)  ; a new edit: the last one's sections go
    (setq complex-edit-live--sections nil
          complex-edit-live--state 'running))
  (unless done
    (let ((diff (complex-edit-live--file-diff uri hunks to-point))
          (section (assoc uri complex-edit-live--sections)))
      (if section
          (setcdr section diff)
        (setq complex-edit-live--sections
              (append complex-edit-live--sections (list (cons uri diff)))))
      (setq complex-edit-live--state 'running)
      (complex-edit-live--redraw))))

(defun complex-edit-live-show (params to-point version)
  "Draw the `complexEdit/preview' PARAMS (a plist).
TO-POINT reads an LSP position in the current buffer; VERSION, called in a
buffer, is its document version."
  (when complex-edit-live-preview
    (let* ((document (plist-get params :textDocument))
           (uri (plist-get document :uri))
           (at (plist-get document :version))
           (done (complex-edit--true-p (plist-get params :done)))
           (hunks (plist-get params :hunks))
           (buffer (and (stringp uri) (find-buffer-visiting (complex-edit--uri-file uri)))))
      (cond
       ((not (stringp uri)))
       ((not (integerp at)) (complex-edit-live--show-file uri hunks done to-point))
       ((not buffer))
       (done (complex-edit-live--clear buffer))
       ((equal at (with-current-buffer buffer (funcall version)))
        (complex-edit-live--draw buffer hunks to-point))))))

(defun complex-edit-live-end (&rest _)
  "An edit ended: clear every preview overlay; the live buffer says it ended."
  (mapc #'complex-edit-live--clear (copy-sequence complex-edit-live--buffers))
  (when (and complex-edit-live--sections (not (eq complex-edit-live--state 'done)))
    (setq complex-edit-live--state 'done)
    (complex-edit-live--redraw)))

(add-hook 'complex-edit--job-end-functions #'complex-edit-live-end)

(provide 'complex-edit-live)

;;; complex-edit-live.el ends here
